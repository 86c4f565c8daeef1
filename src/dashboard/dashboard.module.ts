import { Module } from '@nestjs/common';

import { DashboardController } from './dashboard.controller';

/** The web console (decisions section 15): files only; it talks to the API like any client. */
@Module({ controllers: [DashboardController] })
export class DashboardModule {}
