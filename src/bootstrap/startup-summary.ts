import { type AppConfig, SIMULATOR_MOUNTS } from '../config/app-config';

/**
 * Start-up's lines for what a developer switches on and then wonders about:
 * the gateway simulators (only when on: a development setting), and where
 * payers' email and SMS go. Never a password: an SMTP URL is shown as its
 * scheme, host and port.
 */
export function featureLines(
  config: Pick<
    AppConfig,
    'gatewaySimulators' | 'publicBaseUrl' | 'smtpUrl' | 'mailFrom' | 'sslwirelessSmsUrl'
  >,
): string[] {
  const lines: string[] = [];
  if (config.gatewaySimulators) {
    const at = (path: string) => `${config.publicBaseUrl}${path}`;
    lines.push(
      `Gateway simulators: on (GATEWAY_SIMULATORS): TEST payments go to ${at(SIMULATOR_MOUNTS.sslcommerz)}, ` +
        `${at(SIMULATOR_MOUNTS.bkash)} and ${at(SIMULATOR_MOUNTS.nagad)}`,
    );
  }
  lines.push(
    config.smtpUrl
      ? `Email: LIVE messages go through ${smtpServer(config.smtpUrl)} from ${config.mailFrom} ` +
          '(SMTP_URL, MAIL_FROM); TEST captures them'
      : 'Email: off, no SMTP_URL: LIVE messages are SKIPPED; TEST captures them',
  );
  lines.push(
    `SMS: LIVE messages go to SSL Wireless at ${config.sslwirelessSmsUrl} for apps with SMS ` +
      'credentials (SSLWIRELESS_SMS_URL); TEST captures them',
  );
  return lines;
}

/** `smtp://host:port` without the credentials. */
function smtpServer(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'SMTP_URL';
  }
}
