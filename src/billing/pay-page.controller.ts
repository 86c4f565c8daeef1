import { Body, Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { notFoundPage } from '../common/html/html';
import { langChoiceHeaders, pickLang } from '../common/html/language';
import { sendHtml } from '../common/html/send-html';
import { SkipEnvelope } from '../common/http/envelope.interceptor';
import { type HttpResponse, redirectSeeOther } from '../common/http/replies';
import { AppConfig } from '../config/app-config';
import { InvoicePaymentsService } from './invoice-payments.service';
import { payPage, receiptPage } from './pay.page';
import { WORDS } from './pay-page-language';

/** The customer-facing hosted pay page at /pay/{token}. */
@ApiExcludeController()
@SkipEnvelope()
@Controller('pay')
export class PayPageController {
  constructor(
    private readonly billing: InvoicePaymentsService,
    private readonly config: AppConfig,
  ) {}

  /**
   * In Bangla or English: `?lang=bn|en` (the page's toggle link, kept in a
   * cookie for the way back from the gateway), else the choice kept, else
   * the browser's Accept-Language, else the invoice's language (its
   * `customerLanguage`, else the app's `defaultLanguage`).
   */
  @Get(':token')
  async show(
    @Param('token') token: string,
    @Query('lang') lang: unknown,
    @Headers('cookie') cookie: string | undefined,
    @Headers('accept-language') accept: string | undefined,
    @Res() res: HttpResponse,
  ): Promise<void> {
    const found = await this.billing.payPage(token);
    const chosen = pickLang(lang, cookie, accept, found?.view.language);
    if (!found) return sendHtml(res, notFoundPage(WORDS[chosen].notFound, chosen), 404);
    sendHtml(res, payPage({ ...found, lang: chosen }), 200, langChoiceHeaders(lang, this.config));
  }

  /** A print-friendly receipt once something has been paid. */
  @Get(':token/receipt')
  async receipt(
    @Param('token') token: string,
    @Query('lang') lang: unknown,
    @Headers('cookie') cookie: string | undefined,
    @Headers('accept-language') accept: string | undefined,
    @Res() res: HttpResponse,
  ): Promise<void> {
    const found = await this.billing.payPage(token);
    const chosen = pickLang(lang, cookie, accept, found?.view.language);
    const receipt = found ? receiptPage({ ...found, lang: chosen }) : null;
    if (!receipt) return sendHtml(res, notFoundPage(WORDS[chosen].noReceipt, chosen), 404);
    sendHtml(res, receipt, 200, langChoiceHeaders(lang, this.config));
  }

  /** A Pay button: `gateway` names the one chosen (empty: the app's default). */
  @Post(':token')
  async pay(
    @Param('token') token: string,
    @Query('lang') lang: unknown,
    @Headers('cookie') cookie: string | undefined,
    @Headers('accept-language') accept: string | undefined,
    @Body() body: Record<string, unknown> | undefined,
    @Res() res: HttpResponse,
  ): Promise<void> {
    const gateway = typeof body?.gateway === 'string' && body.gateway ? body.gateway : undefined;
    try {
      const payment = await this.billing.payFromPage(token, gateway);
      // The built-in sandbox's checkout speaks the pay page's language (real gateways choose their own).
      const checkout =
        payment.checkoutUrl && payment.gateway === 'sandbox'
          ? withQuery(payment.checkoutUrl, 'lang', pickLang(lang, cookie, accept))
          : payment.checkoutUrl;
      redirectSeeOther(res, checkout ?? `/pay/${token}`);
    } catch (err) {
      if (err instanceof AppError && err.code !== 'INTERNAL_ERROR') {
        const found = await this.billing.payPage(token);
        const chosen = pickLang(lang, cookie, accept, found?.view.language);
        if (!found) return sendHtml(res, notFoundPage(WORDS[chosen].notFound, chosen), 404);
        // State problems are the customer's business ("This invoice is paid");
        // anything else (e.g. no gateway for the mode) is the merchant's.
        const refused =
          err.code === ErrorCode.INVALID_STATE
            ? 'state'
            : err.code === ErrorCode.RATE_LIMITED
              ? 'busy'
              : 'unavailable';
        return sendHtml(
          res,
          payPage({ ...found, lang: chosen }, refused),
          refused === 'busy' ? 429 : 409,
        );
      }
      throw err;
    }
  }
}

/** `url` with one query parameter set (whatever query it already had). */
function withQuery(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}
