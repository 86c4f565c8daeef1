import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AdminAuth, AppScoped, CurrentAdmin, scopedAppIds } from '../auth/decorators';
import { Page } from '../common/http/envelope';
import type { AdminPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { LedgerBalanceDto, LedgerBalanceQuery } from './dto/ledger-balance.dto';
import { LedgerService } from './ledger.service';

@ApiTags('Admin ledger')
@Controller('api/v1/admin/ledger')
export class LedgerController {
  constructor(private readonly ledger: LedgerService) {}

  @Get('balances')
  @AdminAuth('invoices:read')
  @AppScoped()
  @ApiOperation({
    summary: 'Ledger balances: one row per account',
    description:
      'Sums of every posting, for one app and/or mode or for all. balanceMinor = debitMinor - creditMinor; the rows sum to 0.',
  })
  @ApiEnvelope(LedgerBalanceDto, { isArray: true })
  @ApiErrors(400)
  async balances(
    @Query() query: LedgerBalanceQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<Page<LedgerBalanceDto>> {
    return Page.all(
      await this.ledger.balances({
        appId: query.applicationId,
        mode: query.mode,
        appIds: scopedAppIds(admin, query.applicationId),
      }),
    );
  }
}
