import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { App } from './app.entity';
import { AppsController } from './apps.controller';
import { AppsRepository } from './apps.repository';
import { AppsService } from './apps.service';

@Module({
  imports: [AuthModule, AuditModule, TypeOrmModule.forFeature([App])],
  controllers: [AppsController],
  providers: [AppsRepository, AppsService],
  exports: [AppsService],
})
export class AppsModule {}
