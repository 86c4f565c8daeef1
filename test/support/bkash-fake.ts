/**
 * The tests' contract fake of bKash is the gateway simulator developers run
 * (`npm run simulators`): one stand-in, so what the tests prove is what a
 * laptop shows. See src/simulators/bkash.simulator.ts.
 */
export { BkashSimulator as BkashFake } from '../../src/simulators/bkash.simulator';
