import type { Benefit } from './benefit.entity';
import type { BenefitDto } from './dto/benefit.dto';

export function toBenefitDto(b: Benefit): BenefitDto {
  return {
    id: b.id,
    lookupKey: b.lookupKey,
    name: b.name,
    metadata: b.metadata,
    active: b.active,
    mode: b.mode,
    createdAt: b.createdAt.toISOString(),
    updatedAt: b.updatedAt.toISOString(),
  };
}
