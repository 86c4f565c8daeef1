import { useCtx } from '../context';
import { Screen } from '../ui';

/** Customer notifications (decisions section 16) are not built yet: the screen says so. */
export function NotificationsScreen() {
  const { t } = useCtx();
  return (
    <Screen title={t('Notifications')}>
      <p>
        {t(
          'Notifications are not built yet: they arrive with receipts and dunning reminders (issue 47).',
        )}
      </p>
    </Screen>
  );
}
