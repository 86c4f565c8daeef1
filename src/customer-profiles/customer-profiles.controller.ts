import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import { AppAuth, CurrentApp } from '../auth/decorators';
import { Page } from '../common/http/envelope';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { CustomerDto, CustomerListQuery, CustomersService, toCustomerDto } from '../customers';
import { CustomerProfilesService } from './customer-profiles.service';
import { CustomerProfileDto, PROFILE_ITEMS } from './dto/customer-profile.dto';

/** The customers of the key's app and mode: a list to search, and one customer with their records. */
@ApiTags('Customers')
@Controller('api/v1/customers')
@AppAuth()
export class CustomerProfilesController {
  constructor(
    private readonly customers: CustomersService,
    private readonly profiles: CustomerProfilesService,
  ) {}

  @Get()
  @ApiOperation({
    summary: "List customers of the key's mode, newest first",
    description:
      'A customer exists from the first use of its customerReference (a payment, invoice or purchase). `q` finds customers by the start of their reference, name or email, or by their phone.',
  })
  @ApiEnvelope(CustomerDto, { isArray: true })
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: CustomerListQuery,
  ): Promise<Page<CustomerDto>> {
    const page = await this.customers.list(app, query, query.q);
    return new Page(page.items.map(toCustomerDto), page.pagination);
  }

  @Get(':reference')
  @ApiOperation({
    summary: 'One customer with their invoices, payments, subscriptions and entitlements',
    description: `Each list is bounded (the newest ${PROFILE_ITEMS}, entitlements the first ${PROFILE_ITEMS}) and comes with its total; the full lists are the filtered list routes.`,
  })
  @ApiParam({
    name: 'reference',
    description: 'The customerReference the app uses',
    example: 'cust_42',
  })
  @ApiEnvelope(CustomerProfileDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('reference') reference: string,
  ): Promise<CustomerProfileDto> {
    return this.profiles.profile(app, reference);
  }
}
