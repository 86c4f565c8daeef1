import type { Customer } from './customer.entity';
import type { CustomerDto } from './dto/customer.dto';

export function toCustomerDto(c: Customer): CustomerDto {
  return {
    id: c.id,
    reference: c.externalId,
    name: c.name,
    email: c.email,
    phone: c.phone,
    mode: c.mode,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
