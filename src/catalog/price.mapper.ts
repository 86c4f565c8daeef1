import type { PriceDto } from './dto/price.dto';
import type { Price } from './price.entity';

export function toPriceDto(p: Price): PriceDto {
  return {
    id: p.id,
    productId: p.productId,
    type: p.type,
    amountMinor: p.amountMinor,
    currency: p.currency,
    interval: p.interval,
    intervalCount: p.intervalCount,
    trialDays: p.trialDays,
    active: p.active,
    createdAt: p.createdAt.toISOString(),
  };
}
