import { Body, Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { AppError } from '../../common/errors/app-error';
import { pickLang } from '../../common/html/language';
import { sendHtml } from '../../common/html/send-html';
import { SkipEnvelope } from '../../common/http/envelope.interceptor';
import { type HttpResponse, redirectSeeOther } from '../../common/http/replies';
import { SandboxChoice, SandboxGateway } from './sandbox.gateway';
import { sandboxCheckoutPage } from './sandbox-checkout.page';

const CHOICES: SandboxChoice[] = ['pay', 'fail', 'cancel'];

/** The sandbox gateway's customer-facing pages (not part of Joma's API). */
@ApiExcludeController()
@SkipEnvelope()
@Controller('sandbox/checkout')
export class SandboxCheckoutController {
  constructor(private readonly sandbox: SandboxGateway) {}

  @Get(':sessionId')
  async show(
    @Param('sessionId') sessionId: string,
    @Query('lang') lang: unknown,
    @Headers('accept-language') accept: string | undefined,
    @Res() res: HttpResponse,
  ): Promise<void> {
    const session = await this.sandbox.findSession(sessionId);
    if (!session) throw AppError.notFound('Checkout');
    // No kept choice here (the language cookie is the pay pages'): ?lang=, else the browser's.
    sendHtml(res, sandboxCheckoutPage(session, pickLang(lang, undefined, accept)));
  }

  @Post(':sessionId')
  async complete(
    @Param('sessionId') sessionId: string,
    @Body() body: { outcome?: string },
    @Res() res: HttpResponse,
  ): Promise<void> {
    const choice = CHOICES.find((c) => c === body?.outcome);
    if (!choice) throw AppError.validation('outcome', 'outcome must be pay, fail or cancel');
    const done = await this.sandbox.complete(sessionId, choice);
    if (!done) throw AppError.notFound('Checkout');
    if (done.session.status === 'CLOSED') {
      throw AppError.invalidState('This checkout was closed by the merchant; no payment was taken');
    }
    redirectSeeOther(res, done.returnUrl);
  }
}
