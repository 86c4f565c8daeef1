/** The retention feature's public door. */
export { RetentionModule } from './retention.module';
