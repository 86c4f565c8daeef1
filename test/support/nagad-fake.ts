/**
 * The tests' contract fake of Nagad is the gateway simulator developers run
 * (`npm run simulators`): one stand-in, so what the tests prove is what a
 * laptop shows. See src/simulators/nagad.simulator.ts.
 */
export {
  type NagadCredentials,
  NagadSimulator as NagadFake,
} from '../../src/simulators/nagad.simulator';
