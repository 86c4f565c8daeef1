import { Injectable } from '@nestjs/common';

import { Clock } from '../common/clock/clock';
import { randomToken, safeEqual, sha256Hex } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { AppPrincipal, Mode } from '../common/http/request-context';
import { appTopic, ChangeFeed, ReplicaCache } from '../database/change-feed';
import { AppCredentialsRepository, AppProfile } from './app-credentials.repository';

export interface IssuedCredential {
  mode: Mode;
  apiKey: string;
  /** Shown once; only its hash is stored. */
  apiSecret: string;
}

interface CachedCredential {
  appId: number;
  appName: string;
  appStatus: string;
  mode: Mode;
  secretHash: string;
}

/** How long one replica remembers that a key matches no credential. */
export const UNKNOWN_KEY_CACHE_MS = 5_000;

/** How long a key lookup is trusted by one replica before it reads again (a backstop to the change feed). */
export const CREDENTIAL_CACHE_MS = 10_000;

/**
 * Issues, rotates and checks app key/secret pairs. The lookup behind every
 * app call is cached per replica for a few seconds and dropped at once on
 * rotation or suspension (the change feed), on every replica.
 */
@Injectable()
export class AppCredentialsService {
  private readonly cache: ReplicaCache<CachedCredential>;

  constructor(
    private readonly credentials: AppCredentialsRepository,
    private readonly clock: Clock,
    private readonly changes: ChangeFeed,
  ) {
    this.cache = new ReplicaCache(changes, CREDENTIAL_CACHE_MS, () => clock.nowMs());
  }

  private static mint(mode: Mode): IssuedCredential {
    const m = mode === 'TEST' ? 'test' : 'live';
    return { mode, apiKey: `pk_${m}_${randomToken(18)}`, apiSecret: `sk_${m}_${randomToken(32)}` };
  }

  /** Creates both pairs of a new app (inside the caller's transaction). */
  async issueAll(appId: number, profile: AppProfile): Promise<IssuedCredential[]> {
    const issued = (['TEST', 'LIVE'] as Mode[]).map((m) => AppCredentialsService.mint(m));
    await this.credentials.insertMany(
      issued.map((c) => ({
        appId,
        mode: c.mode,
        apiKey: c.apiKey,
        secretHash: sha256Hex(c.apiSecret),
        appName: profile.name,
        appStatus: profile.status,
      })),
    );
    return issued;
  }

  /** Replaces one mode's pair; the old key and secret stop working at once, on every replica. */
  /**
   * A new secret for one mode; the key stays (decisions 20: integrations
   * keep their key, only the secret is replaced). The old secret stops
   * working at the commit, on every replica.
   */
  async rotate(appId: number, mode: Mode): Promise<IssuedCredential> {
    const current = (await this.credentials.ofApp(appId)).find((c) => c.mode === mode);
    if (!current) throw AppError.notFound('App');
    const fresh: IssuedCredential = { ...AppCredentialsService.mint(mode), apiKey: current.apiKey };
    const replaced = await this.credentials.replacePair(appId, mode, {
      apiKey: fresh.apiKey,
      secretHash: sha256Hex(fresh.apiSecret),
      rotatedAt: this.clock.now(),
    });
    if (!replaced) throw AppError.notFound('App');
    await this.announceChange(appId);
    return fresh;
  }

  /**
   * The app was renamed, suspended or reactivated: its key check sees the
   * new name and status from the commit on, on every replica. Call inside
   * the transaction of the change.
   */
  async appChanged(appId: number, profile: AppProfile): Promise<void> {
    await this.credentials.setAppProfile(appId, profile);
    await this.announceChange(appId);
  }

  /**
   * Tells every replica (this one included) to drop what it cached of the
   * app. Call inside the transaction of the change: PostgreSQL delivers the
   * notification only when it commits, so nobody re-reads the old row.
   */
  private async announceChange(appId: number): Promise<void> {
    await this.changes.announce(appTopic(appId));
  }

  async keysOf(appId: number): Promise<{ mode: Mode; apiKey: string }[]> {
    const rows = await this.credentials.ofApp(appId);
    return rows.map((r) => ({ mode: r.mode, apiKey: r.apiKey }));
  }

  /** This replica drops what it cached of the app at once (after the commit of an announced change). */
  invalidateApp(appId: number): void {
    this.changes.touch(appTopic(appId));
  }

  async authenticate(
    apiKey: string | undefined,
    apiSecret: string | undefined,
  ): Promise<AppPrincipal> {
    if (!apiKey || !apiSecret) {
      throw new AppError(
        ErrorCode.AUTHENTICATION_REQUIRED,
        'X-Api-Key and X-Api-Secret headers are required',
      );
    }
    return this.check(await this.lookup(apiKey), apiSecret);
  }

  /**
   * The same check, answered only from this replica's cache (synchronous, no
   * database read): the principal when the key is cached, the secret matches
   * and the app is active; undefined otherwise (then `authenticate` decides).
   * Lets the app rate limit refuse a call before its body is even read.
   */
  authenticateCached(
    apiKey: string | undefined,
    apiSecret: string | undefined,
  ): AppPrincipal | undefined {
    if (!apiKey || !apiSecret) return undefined;
    const entry = this.cache.peek(apiKey);
    if (!entry) return undefined;
    try {
      return this.check(entry, apiSecret);
    } catch {
      return undefined;
    }
  }

  /**
   * The app and mode an admin acts on through the app routes (section 15),
   * or null when there is no such app. A suspended app stays readable and
   * writable by its admins (its keys are refused, not its operators).
   */
  async principalOf(appId: number, mode: Mode): Promise<AppPrincipal | null> {
    const row = (await this.credentials.ofApp(appId)).find((c) => c.mode === mode);
    return row ? { appId: row.appId, appName: row.appName, mode } : null;
  }

  private check(entry: CachedCredential | null, apiSecret: string): AppPrincipal {
    // Compare hashes in constant time; an unknown key still pays for one comparison.
    const matches = safeEqual(sha256Hex(apiSecret), entry?.secretHash ?? sha256Hex('unknown-key'));
    if (!entry || !matches)
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Invalid API key or secret');
    if (entry.appStatus !== 'ACTIVE')
      throw new AppError(ErrorCode.APP_SUSPENDED, 'This app is suspended');
    return { appId: entry.appId, appName: entry.appName, mode: entry.mode };
  }

  /**
   * Keys that matched no credential, remembered for a few seconds: a flood of
   * made-up keys costs a map lookup each, not a database read. Safe because
   * a key never becomes valid later: the service mints every key, new and
   * random, at creation and rotation.
   */
  private readonly unknownKeys = new Map<string, number>();

  private async lookup(apiKey: string): Promise<CachedCredential | null> {
    if (apiKey.length > 200) return null;
    const now = this.clock.nowMs();
    if ((this.unknownKeys.get(apiKey) ?? 0) > now) return null;
    const entry = await this.cache.get(
      apiKey,
      (entry) => appTopic(entry.appId),
      async () => {
        const row = await this.credentials.byApiKey(apiKey);
        return row
          ? {
              appId: row.appId,
              appName: row.appName,
              appStatus: row.appStatus,
              mode: row.mode,
              secretHash: row.secretHash,
            }
          : null;
      },
    );
    if (!entry) {
      if (this.unknownKeys.size >= 10_000) this.unknownKeys.clear();
      this.unknownKeys.set(apiKey, now + UNKNOWN_KEY_CACHE_MS);
    }
    return entry;
  }
}
