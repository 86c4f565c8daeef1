import { featureLines } from './startup-summary';

describe('start-up lines for the simulators, email and SMS', () => {
  const base = {
    gatewaySimulators: false,
    publicBaseUrl: 'http://localhost:3000',
    smtpUrl: undefined,
    mailFrom: 'Joma <no-reply@localhost>',
    sslwirelessSmsUrl: 'https://smsplus.sslwireless.com',
  };

  it('by default: no simulators line; email off; SMS for apps with credentials', () => {
    expect(featureLines(base)).toEqual([
      'Email: off, no SMTP_URL: LIVE messages are SKIPPED; TEST captures them',
      'SMS: LIVE messages go to SSL Wireless at https://smsplus.sslwireless.com for apps with SMS credentials (SSLWIRELESS_SMS_URL); TEST captures them',
    ]);
  });

  it('says where the simulators are and which SMTP server takes email, never its password', () => {
    const lines = featureLines({
      ...base,
      gatewaySimulators: true,
      smtpUrl: 'smtp://mailer:s3cret-pass@mail.example.com:587',
      mailFrom: 'Padma Traders <billing@padma.example>',
    });
    expect(lines.slice(0, 2)).toEqual([
      'Gateway simulators: on (GATEWAY_SIMULATORS): TEST payments go to http://localhost:3000/simulators/sslcommerz, http://localhost:3000/simulators/bkash and http://localhost:3000/simulators/nagad',
      'Email: LIVE messages go through smtp://mail.example.com:587 from Padma Traders <billing@padma.example> (SMTP_URL, MAIL_FROM); TEST captures them',
    ]);
    expect(lines.join('\n')).not.toMatch(/s3cret|mailer/);
  });
});
