import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import { AppAuth, CurrentApp } from '../auth/decorators';
import { Page } from '../common/http/envelope';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { CustomersService } from '../customers';
import { EntitlementDto } from './dto/entitlement.dto';
import { toEntitlementDto } from './entitlement.mapper';
import { EntitlementsService } from './entitlements.service';

@ApiTags('Customers')
@Controller('api/v1/customers')
@AppAuth()
export class EntitlementsController {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly customers: CustomersService,
  ) {}

  @Get(':externalId/entitlements')
  @ApiOperation({
    summary: 'What the customer holds now',
    description:
      'One row per grant, oldest first: a benefit held from two sources shows twice. Subscriptions grant while TRIALING or ACTIVE; paid one-time purchases grant for good. Every row is returned (no paging).',
  })
  @ApiParam({
    name: 'externalId',
    description: 'The customerReference the app uses',
    example: 'cust_42',
  })
  @ApiEnvelope(EntitlementDto, { isArray: true })
  @ApiErrors(404)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Param('externalId') externalId: string,
  ): Promise<Page<EntitlementDto>> {
    const customer = await this.customers.getByExternalId(app, externalId);
    const held = await this.entitlements.heldBy(app, customer.id);
    return Page.all(held.map(toEntitlementDto));
  }
}
