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
      "Sums of every posting, for one app and/or mode or for all (every app and mode in the caller's scope). balanceMinor = debitMinor - creditMinor; the rows sum to 0. Sums are exact; a figure above 2^53-1 is 422 AMOUNT_OUT_OF_RANGE naming the app whose figures overflow (ask for another app: its balances are answered as usual).",
  })
  @ApiEnvelope(LedgerBalanceDto, { isArray: true })
  @ApiErrors(400, 422)
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
