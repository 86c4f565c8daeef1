/**
 * The tests' contract fake of SSLCommerz is the gateway simulator developers
 * run (`npm run simulators`): one stand-in, so what the tests prove is what
 * a laptop shows. See src/simulators/sslcommerz.simulator.ts.
 */
export {
  type FakeAttempt,
  SslcommerzSimulator as SslcommerzFake,
} from '../../src/simulators/sslcommerz.simulator';
