/** The subscriptions feature's public door. */
export { SubscriptionsModule } from './subscriptions.module';
export { SubscriptionsService, type SubscriptionView } from './subscriptions.service';
export { SubscriptionRenewalJob } from './subscription-renewal.job';
export { SubscriptionDto } from './dto/subscription.dto';
export { toSubscriptionDto } from './subscription.mapper';
export { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './subscription-state';
