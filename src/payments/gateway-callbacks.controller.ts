import {
  All,
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  ApiBody,
  ApiConsumes,
  ApiExcludeEndpoint,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';

import { AppsService, originOf, parseAllowlist } from '../apps';
import { AppError } from '../common/errors/app-error';
import { langChoiceHeaders, pickLang } from '../common/html/language';
import { sendHtml } from '../common/html/send-html';
import { SkipEnvelope } from '../common/http/envelope.interceptor';
import { type HttpResponse, redirectSeeOther } from '../common/http/replies';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { AppConfig } from '../config/app-config';
import { GATEWAY_NAMES } from '../gateways';
import { IpnAckDto } from './dto/payment.dto';
import { InvoicePayPages } from './invoice-pay-pages';
import type { Payment } from './payment.entity';
import { PaymentConfirmationsService, WAITING_ASK_EVERY_MS } from './payment-confirmations.service';
import { type Merchant, paymentNotFoundPage, paymentResultPage } from './payment-result.page';
import { PaymentsService } from './payments.service';

/**
 * Where gateways reach Joma: the customer's browser coming back (return)
 * and server-to-server notifications (IPN). Both go through the one
 * confirmation path, which asks the gateway before believing anything.
 */
@ApiTags('Gateway callbacks')
@Controller()
export class GatewayCallbacksController {
  constructor(
    private readonly confirmations: PaymentConfirmationsService,
    private readonly payments: PaymentsService,
    private readonly config: AppConfig,
    private readonly apps: AppsService,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * The invoice's pay page when a capture of this invoice payment could not
   * be counted at all (refunded whole) and the invoice still has something
   * due; null otherwise, or when no module provides invoice pages.
   */
  private async invoicePayPageOf(p: Payment): Promise<string | null> {
    if (p.status !== 'SUCCEEDED' || p.invoiceId === null) return null;
    if (p.excessMinor <= 0 || p.excessMinor < p.amountMinor) return null;
    let pages: InvoicePayPages;
    try {
      pages = this.moduleRef.get(InvoicePayPages, { strict: false });
    } catch {
      return null;
    }
    return pages.whileDue({ appId: p.appId, mode: p.mode }, p.invoiceId);
  }

  /**
   * The merchant a result page names, and the way back: the invoice's pay
   * page when the payment came from one, else the site of the payment's
   * return URLs or of the app's defaults and allowlist (its origin), else none.
   */
  private async merchantOf(p: Payment): Promise<Merchant> {
    const app = await this.apps.settingsOf(p.appId);
    const payPages = `${this.config.publicBaseUrl}/pay/`;
    const candidates = [
      p.cancelUrl,
      p.successUrl,
      p.failUrl,
      app.defaultCancelUrl,
      app.defaultSuccessUrl,
      ...parseAllowlist(app.returnUrlAllowlist),
    ];
    for (const url of candidates) {
      if (!url) continue;
      if (url.startsWith(payPages)) return { name: app.name, siteUrl: url };
      const origin = originOf(url);
      if (origin) return { name: app.name, siteUrl: `${origin}/` };
    }
    return { name: app.name, siteUrl: null };
  }

  @All('api/v1/gateways/:gateway/return')
  @SkipEnvelope()
  @ApiExcludeEndpoint()
  async return(
    @Param('gateway') gateway: string,
    @Query() query: Record<string, unknown>,
    @Body() body: Record<string, unknown> | undefined,
    @Headers('accept-language') accept: string | undefined,
    @Res() res: HttpResponse,
  ): Promise<void> {
    // A customer's browser: a page whatever the gateway does, never an API error.
    const p = await this.confirmations.confirmReturn(gateway, { ...query, ...(body ?? {}) });
    // Only the browser's language here: the kept choice's cookie is scoped to /pay.
    if (!p) return sendHtml(res, paymentNotFoundPage(pickLang(undefined, undefined, accept)), 404);
    redirectSeeOther(res, onwardUrl(p) ?? `/pay/result/${p.reference}`);
  }

  @Post('api/v1/gateways/:gateway/ipn')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Gateway server-to-server notification (verified with the gateway before use)',
    description:
      "Called by the gateway, not by apps. The body is the gateway's own notification; Joma only uses it to ask the gateway what happened. 404 when the gateway is unknown, does not confirm the notification, or it matches no payment; 503 with Retry-After when the gateway cannot be asked right now (the gateway sends its notification again).",
  })
  @ApiParam({
    name: 'gateway',
    enum: GATEWAY_NAMES,
    description: 'Gateway adapter name',
    example: 'sandbox',
  })
  @ApiConsumes('application/json', 'application/x-www-form-urlencoded')
  @ApiBody({
    description: "The gateway's notification fields (gateway-specific)",
    schema: { type: 'object', additionalProperties: true, example: { session_id: 'sbx_...' } },
  })
  @ApiEnvelope(IpnAckDto)
  @ApiErrors(404, 503)
  async ipn(
    @Param('gateway') gateway: string,
    @Body() body: Record<string, unknown>,
  ): Promise<{ received: boolean }> {
    const result = await this.confirmations.confirmFromGateway(gateway, body ?? {});
    if (!result) throw AppError.notFound('Payment');
    return { received: true };
  }

  @Get('pay/result/:reference')
  @SkipEnvelope()
  @ApiExcludeEndpoint()
  async result(
    @Param('reference') reference: string,
    @Query('lang') lang: unknown,
    @Headers('cookie') cookie: string | undefined,
    @Headers('accept-language') accept: string | undefined,
    @Res() res: HttpResponse,
  ): Promise<void> {
    const chosen = pickLang(lang, cookie, accept);
    const found = await this.payments.findByReference(reference);
    if (!found) return sendHtml(res, paymentNotFoundPage(chosen), 404);
    const p = await this.confirmations.refreshForWaitingCustomer(found);
    // Settled while the customer waited here: on to where the return would have sent them.
    const onward = onwardUrl(p);
    if (onward) return redirectSeeOther(res, onward);
    // Still PENDING (the gateway was asked above): the page reloads itself until it is settled.
    const refresh: Record<string, string> =
      p.status === 'PENDING' ? { Refresh: String(WAITING_ASK_EVERY_MS / 1000) } : {};
    const page = paymentResultPage(
      p,
      await this.merchantOf(p),
      chosen,
      await this.invoicePayPageOf(p),
    );
    sendHtml(res, page, 200, {
      ...langChoiceHeaders(lang, this.config),
      ...refresh,
    });
  }
}

/**
 * Where a customer goes once their payment has an outcome: the payment's
 * success, fail or cancel URL (the invoice's pay page for invoice
 * payments). None while PENDING, or without such a URL: then the status
 * page shows where the payment stands.
 */
function onwardUrl(p: Payment): string | null {
  switch (p.status) {
    case 'SUCCEEDED':
      return p.successUrl;
    case 'FAILED':
      return p.failUrl;
    case 'PENDING':
      return null;
    default:
      return p.cancelUrl;
  }
}
