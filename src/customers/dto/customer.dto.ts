import { ApiProperty } from '@nestjs/swagger';

import { SearchField } from '../../common/http/list-filters';
import { PageQueryDto } from '../../common/http/pagination';

/** A customer of the app, in the key's mode. */
export class CustomerDto {
  @ApiProperty({
    type: 'integer',
    description: "Joma's id of the customer (customerRefId in operators' invoice searches)",
  })
  id: number;
  @ApiProperty({ example: 'cust_42', description: "The app's customerReference" })
  reference: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'As stored: +8801XXXXXXXXX for Bangladeshi mobiles, else E.164',
  })
  phone: string | null;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: 'TEST' | 'LIVE';
  @ApiProperty({ format: 'date-time', description: 'First use of the reference' })
  createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export const CUSTOMER_SORT_FIELDS = ['createdAt', 'id'] as const;

/** GET /api/v1/customers */
export class CustomerListQuery extends PageQueryDto(CUSTOMER_SORT_FIELDS) {
  @SearchField(
    'Customers whose reference, name or email starts with this (any letter case), or whose phone is this number (any form customerPhone takes: 01XXXXXXXXX finds +8801XXXXXXXXX)',
  )
  q?: string;
}
