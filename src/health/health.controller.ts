import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';

import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { ApiEnvelope } from '../common/http/swagger';
import { HealthRepository } from './health.repository';

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
  constructor(private readonly db: HealthRepository) {}

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
      await this.db.ping();
    } catch {
      throw new AppError(ErrorCode.INTERNAL_ERROR, 'Database is not reachable');
    }
    return { status: 'ready', database: 'up' };
  }
}
