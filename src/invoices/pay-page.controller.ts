import { Controller, Get, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError } from '../common/errors/app-error';
import { SkipEnvelope } from '../common/http/envelope.interceptor';
import { InvoicesService } from './invoices.service';
import { notFoundPage, payPage } from './pay.page';

/** The customer-facing hosted pay page at /pay/{token}. */
@ApiExcludeController()
@SkipEnvelope()
@Controller('pay')
export class PayPageController {
  constructor(private readonly invoices: InvoicesService) {}

  @Get(':token')
  async show(@Param('token') token: string, @Res() res: Response): Promise<void> {
    const found = await this.invoices.byPayToken(token);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; img-src https: http:; style-src 'unsafe-inline'; form-action 'self' http: https:",
    );
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (!found) {
      res.status(404).type('html').send(notFoundPage());
      return;
    }
    res.type('html').send(payPage(found.view, found.template));
  }

  @Post(':token')
  async pay(@Param('token') token: string, @Res() res: Response): Promise<void> {
    try {
      const payment = await this.invoices.payFromPage(token);
      res.redirect(303, payment.checkoutUrl ?? `/pay/${token}`);
    } catch (err) {
      if (err instanceof AppError && err.code !== 'INTERNAL_ERROR') {
        const found = await this.invoices.byPayToken(token);
        if (!found) {
          res.status(404).type('html').send(notFoundPage());
          return;
        }
        res
          .status(409)
          .type('html')
          .send(payPage(found.view, found.template, err.message));
        return;
      }
      throw err;
    }
  }
}
