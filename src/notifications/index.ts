/** The notifications feature's public door. */
export { NotificationWorker } from './notification-worker';
export { NotificationsModule } from './notifications.module';
