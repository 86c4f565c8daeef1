import { Body, Controller, Param, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsObject, IsOptional } from 'class-validator';
import { AdminAuth } from '../../auth/decorators';
import { AppError } from '../../common/errors/app-error';
import { ParseIdPipe } from '../../common/http/parse-id.pipe';
import { ApiEnvelope, ApiErrors } from '../../common/http/swagger';
import { GatewayRegistry } from '../gateway-registry.service';
import type { GatewayMode } from '../payment-gateway.types';
import { GatewayCredentialsService } from './gateway-credentials.service';

export class ModeQuery {
  @ApiProperty({ enum: ['TEST', 'LIVE'] })
  @IsIn(['TEST', 'LIVE'])
  mode: GatewayMode;
}

export class SetGatewayCredentialsDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { storeId: 'testbox', storePassword: 'qwerty' },
    description:
      "The gateway's credential fields, all of them (sslcommerz: storeId, storePassword; bkash: appKey, appSecret, username, password). Stored encrypted; never returned.",
  })
  @IsObject()
  credentials: Record<string, string>;

  @ApiPropertyOptional({ description: "Make it the app's default gateway in this mode" })
  @IsOptional()
  @IsBoolean()
  default?: boolean;
}

export class GatewaySetupDto {
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ example: 'sslcommerz' }) gateway: string;
  @ApiProperty({
    type: [String],
    description: 'The fields set (names only: values are never shown)',
  })
  credentialFields: string[];
  @ApiProperty({
    nullable: true,
    type: String,
    description: "The app's default gateway in this mode",
  })
  defaultGateway: string | null;
  @ApiProperty({
    type: [String],
    description: 'Every gateway the app has credentials for in this mode',
  })
  configuredGateways: string[];
}

@ApiTags('Admin apps')
@Controller('api/v1/admin/apps')
export class GatewayCredentialsController {
  constructor(
    private readonly credentials: GatewayCredentialsService,
    private readonly registry: GatewayRegistry,
  ) {}

  @Patch(':id/gateways/:gateway')
  @AdminAuth('apps:write')
  @ApiOperation({
    summary: "Set an app's credentials for a gateway in one mode",
    description:
      'Replaces the stored credentials (sealed with ENCRYPTION_KEY; never returned or logged). `default: true` makes it the gateway new payments of this mode use when they name none.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiParam({ name: 'gateway', example: 'sslcommerz' })
  @ApiEnvelope(GatewaySetupDto)
  @ApiErrors(400, 404)
  async set(
    @Param('id', ParseIdPipe) appId: number,
    @Param('gateway') name: string,
    @Query() query: ModeQuery,
    @Body() body: SetGatewayCredentialsDto,
  ): Promise<GatewaySetupDto> {
    const gateway = this.registry.get(name);
    if (!gateway.modes.includes(query.mode))
      throw AppError.validation(
        'mode',
        `The ${name} gateway serves ${gateway.modes.join(' and ')} mode only`,
      );
    const fields = gateway.credentialFields;
    if (fields.length === 0)
      throw AppError.validation('gateway', `The ${name} gateway takes no credentials`);
    const given = Object.keys(body.credentials);
    const missing = fields.filter(
      (f) => typeof body.credentials[f] !== 'string' || !body.credentials[f].trim(),
    );
    const unknown = given.filter((f) => !fields.includes(f));
    if (
      missing.length ||
      unknown.length ||
      given.some((f) => String(body.credentials[f]).length > 500)
    ) {
      throw AppError.validation(
        'credentials',
        `credentials must be exactly ${fields.join(', ')} (non-empty strings of at most 500 characters)`,
      );
    }
    await this.credentials.set(appId, query.mode, name, body.credentials, body.default ?? false);
    const configured = await this.credentials.configured(appId, query.mode);
    return {
      applicationId: appId,
      mode: query.mode,
      gateway: name,
      credentialFields: [...fields],
      defaultGateway: configured.find((c) => c.isDefault)?.gateway ?? null,
      configuredGateways: configured.map((c) => c.gateway),
    };
  }
}
