import { Controller, Get, Header, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { SkipEnvelope } from '../common/http/envelope.interceptor';
import { Metrics } from '../common/metrics/metrics';

@ApiTags('Operations')
@Controller()
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly metrics: Metrics,
  ) {}

  @Get('healthz')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ description: 'Envelope with data.status "ok"' })
  healthz() {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOperation({ summary: 'Readiness: the database answers' })
  @ApiOkResponse({
    description:
      'Envelope with data.status "ready"; 500 INTERNAL_ERROR when the database is unreachable',
  })
  async readyz() {
    try {
      await this.db.query('SELECT 1');
    } catch {
      throw new AppError(ErrorCode.INTERNAL_ERROR, 'Database is not reachable');
    }
    return { status: 'ready', database: 'up' };
  }

  @Get('metrics')
  @HttpCode(200)
  @SkipEnvelope()
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/plain; version=0.0.4')
  async prometheus(@Res() res: Response): Promise<void> {
    res.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
