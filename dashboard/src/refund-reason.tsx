import { useId } from 'preact/hooks';

import { useCtx } from './context';

/** The reasons merchants give most, offered ready-made (issue 58); any other text is fine too. */
export const REFUND_REASONS = [
  'Customer request',
  'Duplicate payment',
  'Order cancelled',
  'Not delivered',
  'Damaged or defective',
  'Charged the wrong amount',
];

/** The refund form's `Reason`: a text field with the presets as suggestions and as one-click choices. */
export function RefundReason({
  value,
  onChange,
}: {
  value: string;
  onChange: (v: string) => void;
}) {
  const { t } = useCtx();
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{t('Reason')}</label>
      <input
        id={id}
        list={`${id}-presets`}
        maxLength={500}
        value={value}
        aria-describedby={`${id}-hint`}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <datalist id={`${id}-presets`}>
        {REFUND_REASONS.map((r) => (
          <option value={t(r)} />
        ))}
      </datalist>
      <small id={`${id}-hint`} class="hint">
        {t('Pick a common reason or type your own.')}
      </small>
      <div class="presets" role="group" aria-label={t('Quick picks')}>
        {REFUND_REASONS.map((r) => (
          <button
            type="button"
            class="preset"
            aria-pressed={value === t(r) ? 'true' : 'false'}
            onClick={() => onChange(t(r))}
          >
            {t(r)}
          </button>
        ))}
      </div>
    </div>
  );
}
