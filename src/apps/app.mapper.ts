import type { IssuedCredential } from '../auth';
import type { App } from './app.entity';
import type { AppDto, AppSettingsDto, CreatedAppDto } from './dto/app.dto';

export function toAppSettingsDto(a: App): AppSettingsDto {
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    logoUrl: a.logoUrl,
    refundApprovalThresholdMinor: a.refundApprovalThresholdMinor,
    receiptsEnabled: a.receiptsEnabled,
    dunningEnabled: a.dunningEnabled,
    defaultLanguage: a.defaultLanguage,
    minAmountMinor: a.minAmountMinor,
    maxAmountMinor: a.maxAmountMinor,
    paymentExpiryMinutes: a.paymentExpiryMinutes,
    returnUrlAllowlist: a.returnUrlAllowlist,
    defaultSuccessUrl: a.defaultSuccessUrl,
    defaultFailUrl: a.defaultFailUrl,
    defaultCancelUrl: a.defaultCancelUrl,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export function toAppDto(a: App, keys: { mode: string; apiKey: string }[]): AppDto {
  return {
    ...toAppSettingsDto(a),
    credentials: keys.map((k) => ({ mode: k.mode, apiKey: k.apiKey })),
  };
}

export function toCreatedAppDto(a: App, issued: IssuedCredential[]): CreatedAppDto {
  return {
    ...toAppSettingsDto(a),
    credentials: issued.map((c) => ({ mode: c.mode, apiKey: c.apiKey, apiSecret: c.apiSecret })),
  };
}
