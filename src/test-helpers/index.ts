/** The TEST-mode helpers' public door. */
export { TestHelpersModule } from './test-helpers.module';
