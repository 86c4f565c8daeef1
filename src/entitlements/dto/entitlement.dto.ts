import { ApiProperty } from '@nestjs/swagger';

export class EntitlementDto {
  @ApiProperty({ type: 'integer' }) benefitId: number;
  @ApiProperty({ example: 'premium-content' }) lookupKey: string;
  @ApiProperty({ example: 'Premium content' }) name: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) grantedAt: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The subscription it is held from (while TRIALING or ACTIVE)',
  })
  subscriptionId: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The paid one-time purchase invoice it is held from (for good)',
  })
  invoiceId: number | null;
}
