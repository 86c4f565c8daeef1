import { Controller, Get, Header, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { SkipEnvelope } from '../common/http/envelope.interceptor';
import { ApiEnvelope } from '../common/http/swagger';
import { Metrics } from '../common/metrics/metrics';

export class HealthDto {
  @ApiProperty({ example: 'ok' }) status: string;
}

export class ReadinessDto {
  @ApiProperty({ example: 'ready' }) status: string;
  @ApiProperty({ example: 'up' }) database: string;
}

@ApiTags('Operations')
@Controller()
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly metrics: Metrics,
  ) {}

  @Get('healthz')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiEnvelope(HealthDto, { description: 'The process is alive' })
  healthz(): HealthDto {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOperation({ summary: 'Readiness: the database answers' })
  @ApiEnvelope(ReadinessDto, {
    description: 'The database answers; 500 INTERNAL_ERROR when it is unreachable',
  })
  async readyz(): Promise<ReadinessDto> {
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
