import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { Benefit } from './benefit.entity';
import { AdminBenefitsController, BenefitsController } from './benefits.controller';
import { BenefitsService } from './benefits.service';

@Module({
  imports: [AuthModule, TypeOrmModule.forFeature([Benefit])],
  controllers: [BenefitsController, AdminBenefitsController],
  providers: [BenefitsService],
  exports: [BenefitsService],
})
export class CatalogModule {}
