import { Body, Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsObject, IsOptional } from 'class-validator';

import { AppsService } from '../../apps';
import { AdminAuth, AppScoped } from '../../auth/decorators';
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
      "The gateway's credential fields, all of them (sslcommerz: storeId, storePassword; bkash: appKey, appSecret, username, password; nagad: merchantId, merchantNumber, merchantPrivateKey, nagadPublicKey, the keys as bare base64 or PEM). Stored encrypted; never returned.",
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

export class GatewayStatusDto {
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ example: 'sslcommerz' }) gateway: string;
  @ApiProperty({
    description:
      'Whether the app can take payments through it in this mode (credentials set, or none needed)',
  })
  configured: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'tbox',
    description:
      'The last 4 characters of its first credential field (storeId, appKey), to tell which account is set; never a secret. Null when none is set',
  })
  last4: string | null;
  @ApiProperty({ description: "The app's default gateway in this mode" }) default: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      "The last error the gateway gave for this app and mode, in the gateway's own words (code and message)",
  })
  lastError: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) lastErrorAt: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description:
      'When the gateway last answered a call for this app and mode (a checkout opened, a payment status or a refund answered); kept to the minute, and always later than `lastErrorAt` once the gateway answers again after an error. A `lastErrorAt` older than it is a stale error. Null when none is recorded',
  })
  lastSuccessAt: string | null;
}

export class GatewayRemovedDto {
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ example: 'bkash' }) gateway: string;
  @ApiProperty({ example: true }) deleted: boolean;
}

@ApiTags('Admin apps')
@Controller('api/v1/admin/apps')
export class GatewayCredentialsController {
  constructor(
    private readonly credentials: GatewayCredentialsService,
    private readonly registry: GatewayRegistry,
    private readonly apps: AppsService,
  ) {}

  @Get(':id/gateways')
  @AdminAuth('apps:read')
  @AppScoped({ appParam: 'id' })
  @ApiOperation({
    summary: "List an app's gateways per mode",
    description:
      'Every gateway serving each mode: whether it is configured, the last 4 characters of its first credential field, whether it is the default, the last error it gave (with its time) and when it last answered successfully (to tell a stale error from a current one). Never a secret.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(GatewayStatusDto, { isArray: true })
  @ApiErrors(404)
  async list(@Param('id', ParseIdPipe) appId: number): Promise<GatewayStatusDto[]> {
    await this.apps.get(appId);
    const setups = await this.credentials.setups(appId, (g) =>
      this.registry.has(g) ? this.registry.get(g).credentialFields : [],
    );
    const out: GatewayStatusDto[] = [];
    for (const mode of ['TEST', 'LIVE'] as const) {
      const defaultName = setups.find((x) => x.mode === mode && x.isDefault)?.gateway;
      for (const name of this.registry.names()) {
        const gateway = this.registry.get(name);
        if (!gateway.modes.includes(mode)) continue;
        const setup = setups.find((x) => x.mode === mode && x.gateway === name);
        out.push({
          mode,
          gateway: name,
          configured: gateway.credentialFields.length === 0 || !!setup?.configured,
          last4: setup?.last4 ?? null,
          default: defaultName === name,
          lastError: setup?.lastError ?? null,
          lastErrorAt: setup?.lastErrorAt?.toISOString() ?? null,
          lastSuccessAt: setup?.lastSuccessAt?.toISOString() ?? null,
        });
      }
    }
    return out;
  }

  @Delete(':id/gateways/:gateway')
  @AdminAuth('apps:write')
  @AppScoped({ appParam: 'id' })
  @ApiOperation({
    summary: "Remove an app's credentials for a gateway in one mode",
    description:
      "Its credentials and access token are deleted (audited); new payments of this mode can no longer use it (if it was the default, the mode's default falls back as when none is set). 409 INVALID_STATE while the gateway has work in flight for the app in this mode (PENDING payments or PENDING refunds through it, which need the credentials to be confirmed or decided): the message names how many of each, and nothing is removed. Replacing the credentials (PATCH) is allowed at any time; the work in flight goes on with the new ones. 404 when none were set.",
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiParam({ name: 'gateway', enum: ['sslcommerz', 'bkash', 'nagad'], example: 'bkash' })
  @ApiEnvelope(GatewayRemovedDto)
  @ApiErrors(400, 404, 409)
  async remove(
    @Param('id', ParseIdPipe) appId: number,
    @Param('gateway') name: string,
    @Query() query: ModeQuery,
  ): Promise<GatewayRemovedDto> {
    this.registry.get(name);
    await this.credentials.remove(appId, query.mode, name);
    return { applicationId: appId, mode: query.mode, gateway: name, deleted: true };
  }

  @Patch(':id/gateways/:gateway')
  @AdminAuth('apps:write')
  @AppScoped({ appParam: 'id' })
  @ApiOperation({
    summary: "Set an app's credentials for a gateway in one mode",
    description:
      'Replaces the stored credentials (sealed with ENCRYPTION_KEY; never returned or logged), also while payments or refunds are in flight at the gateway: they go on with the new ones. `default: true` makes it the gateway new payments of this mode use when they name none.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiParam({ name: 'gateway', enum: ['sslcommerz', 'bkash', 'nagad'], example: 'sslcommerz' })
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
    const longest = gateway.credentialMaxLength ?? 500;
    if (
      missing.length ||
      unknown.length ||
      given.some((f) => String(body.credentials[f]).length > longest)
    ) {
      throw AppError.validation(
        'credentials',
        `credentials must be exactly ${fields.join(', ')} (non-empty strings of at most ${longest} characters)`,
      );
    }
    // The gateway's own check (Nagad: the keys parse as RSA keys): names the field, never the value.
    const problem = gateway.credentialProblem?.(body.credentials);
    if (problem) throw AppError.validation(`credentials.${problem.field}`, problem.message);
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
