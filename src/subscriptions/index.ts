/** The subscriptions feature's public door. */
export { SubscriptionDto } from './dto/subscription.dto';
export { toSubscriptionDto } from './subscription.mapper';
export { DunningReminderDue, SubscriptionFact } from './subscription-events';
export { SubscriptionRenewalJob } from './subscription-renewal.job';
export { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './subscription-state';
export { SubscriptionsModule } from './subscriptions.module';
export { SubscriptionsService, type SubscriptionView } from './subscriptions.service';
