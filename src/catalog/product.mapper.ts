import { toBenefitDto } from './benefit.mapper';
import type { ProductDto } from './dto/product.dto';
import { toPriceDto } from './price.mapper';
import type { ProductDetails } from './products.service';

export function toProductDto({ product: p, prices, benefits }: ProductDetails): ProductDto {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    status: p.status,
    mode: p.mode,
    prices: prices.map(toPriceDto),
    benefits: benefits.map(toBenefitDto),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
