import { SchedulerRegistry } from '@nestjs/schedule';
import { TransactionHost } from '@nestjs-cls/transactional';

import { AppConfig } from '../../src/config/app-config';
import { NotificationWorker } from '../../src/notifications';
import { EmailChannel } from '../../src/notifications/channels/email-channel';
import { SMS_PROVIDER, type SmsProvider } from '../../src/notifications/channels/sms-channel';
import { NotificationMetrics } from '../../src/notifications/notification-metrics';
import { NotificationsRepository } from '../../src/notifications/notifications.repository';
import { SmsCredentialsService } from '../../src/notifications/sms-credentials.service';
import type { TestApp } from './test-app';

/**
 * Another replica's notification worker: its own instance over the same
 * database, channels and clock as the app's (parts may be replaced).
 */
export function anotherNotificationWorker(
  t: TestApp,
  parts: { repo?: NotificationsRepository; email?: EmailChannel; sms?: SmsProvider } = {},
): NotificationWorker {
  return new NotificationWorker(
    parts.repo ?? t.app.get(NotificationsRepository),
    t.app.get(TransactionHost),
    parts.email ?? t.app.get(EmailChannel),
    t.app.get(SmsCredentialsService),
    parts.sms ?? t.app.get<SmsProvider>(SMS_PROVIDER),
    t.app.get(NotificationMetrics),
    t.clock,
    t.app.get(SchedulerRegistry),
    t.app.get(AppConfig),
  );
}

/**
 * Where a killed worker stops in the message after the ones it finished:
 * before committing that it hands it over (nothing went out); after that
 * commit, before the network call (nothing went out, the hand-over
 * recorded); or after the provider took it, before recording the outcome.
 */
export type WorkerDeath = 'before-hand-over' | 'handed-over' | 'after-send';

export interface KilledWorker {
  /** When it claimed its batch (its claim's token), or null when nothing was due. */
  claimedAt: Date | null;
  /** The messages it claimed, in the order it works on them. */
  claimed: number[];
  /** The ones whose hand-over it committed (the last one maybe never sent). */
  handedOver: number[];
  /** The message it stopped in, or null when its batch ran out first (it finished). */
  stoppedIn: number | null;
}

const never = () => new Promise<never>(() => undefined);

/**
 * A notification worker (another replica's) killed mid-batch: it claims
 * the due messages as every worker does (one transaction, the claim
 * lease), finishes the first `finished` of them (hand-over, send, outcome
 * recorded), and stops in the next one at `death`. From then on it writes
 * nothing: stopped before a commit, its open transaction is rolled back
 * (as a dead process's connection is); stopped outside one, its tick
 * simply never goes on. Resolves once it stopped or finished its batch.
 */
export async function killNotificationWorkerMidBatch(
  t: TestApp,
  finished: number,
  death: WorkerDeath,
): Promise<KilledWorker> {
  const real = t.app.get(NotificationsRepository);
  const out: KilledWorker = { claimedAt: null, claimed: [], handedOver: [], stoppedIn: null };
  let stopped!: () => void;
  const stoppedNow = new Promise<void>((ok) => (stopped = ok));
  let index = -1;
  const repo = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'claimDue')
        return async (now: Date, leaseUntil: Date, limit: number) => {
          const batch = await target.claimDue(now, leaseUntil, limit);
          if (batch.length > 0 && out.claimedAt === null) out.claimedAt = now;
          out.claimed.push(...batch.map((m) => Number(m.id)));
          return batch;
        };
      if (prop === 'handOver')
        return async (id: number, claimedAt: Date, at: Date, leaseUntil: Date) => {
          if (++index === finished && death === 'before-hand-over') {
            out.stoppedIn = id;
            stopped();
            throw new Error('the worker was killed'); // rolls the hand-over back
          }
          const handed = await target.handOver(id, claimedAt, at, leaseUntil);
          if (handed) out.handedOver.push(id);
          return handed;
        };
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  /** The network call of the message in hand: as usual, or the process dies around it. */
  const around = async (id: number, send: () => Promise<void>): Promise<void> => {
    if (index !== finished) return send();
    out.stoppedIn = id;
    if (death === 'after-send') await send().catch(() => undefined); // dead either way
    stopped();
    return never();
  };
  const email = t.app.get(EmailChannel);
  const sms = t.app.get<SmsProvider>(SMS_PROVIDER);
  const worker = anotherNotificationWorker(t, {
    repo,
    email: {
      configured: email.configured,
      send: (mail) => around(Number(/\d+$/.exec(mail.id)?.[0]), () => email.send(mail)),
    } as EmailChannel,
    sms: {
      name: sms.name,
      credentialFields: sms.credentialFields,
      send: (credentials, to, text, clientId) =>
        around(Number(/\d+$/.exec(clientId)?.[0]), () => sms.send(credentials, to, text, clientId)),
      canAskAgain: sms.canAskAgain?.bind(sms),
    },
  });
  await Promise.race([worker.tick(), stoppedNow]);
  return out;
}
