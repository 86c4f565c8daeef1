import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, MaxLength, Min, MinLength } from 'class-validator';

import { PageQueryDto, toInt } from '../../common/http/pagination';
import {
  NOTIFICATION_CHANNELS,
  NOTIFICATION_KINDS,
  NOTIFICATION_STATUSES,
  type NotificationChannel,
  type NotificationKind,
  type NotificationStatus,
} from '../notification.entity';

export class NotificationDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ enum: NOTIFICATION_CHANNELS }) channel: NotificationChannel;
  @ApiProperty({ enum: NOTIFICATION_KINDS }) kind: NotificationKind;
  @ApiProperty({
    description:
      'The email address or phone number (masked in LIVE: r***@example.com, 8801*****678)',
  })
  to: string;
  @ApiProperty({
    enum: NOTIFICATION_STATUSES,
    description:
      'QUEUED (waiting for its first try or a retry), SENT, FAILED, SKIPPED (LIVE with the channel not configured, or a number that is not Bangladeshi: see lastError), CAPTURED (TEST: rendered and kept, never sent)',
  })
  status: NotificationStatus;
  @ApiProperty({ type: 'integer', nullable: true }) invoiceId: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) paymentId: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) subscriptionId: number | null;
  @ApiProperty({ enum: ['bn', 'en'] }) language: 'bn' | 'en';
  @ApiProperty({ type: String, nullable: true, description: 'The email subject (null for SMS)' })
  subject: string | null;
  @ApiProperty({ description: 'The plain text of the email, or the SMS' }) text: string;
  @ApiProperty({ type: 'integer', description: 'Every try, refused ones included' })
  attempts: number;
  @ApiProperty({ type: String, nullable: true }) lastError: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sentAt: string | null;
}

export const NOTIFICATION_SORT_FIELDS = ['createdAt', 'id'] as const;
export class NotificationListQuery extends PageQueryDto(NOTIFICATION_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: NOTIFICATION_KINDS })
  @IsOptional()
  @IsIn([...NOTIFICATION_KINDS])
  kind?: NotificationKind;

  @ApiPropertyOptional({ enum: NOTIFICATION_STATUSES })
  @IsOptional()
  @IsIn([...NOTIFICATION_STATUSES])
  status?: NotificationStatus;

  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  invoiceId?: number;
}

export class SslWirelessCredentialsDto {
  @ApiProperty({ description: "SSL Wireless's api_token (sealed at rest, never returned)" })
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  apiToken: string;

  @ApiProperty({ description: "SSL Wireless's sid (the sender id / masking name)" })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  sid: string;
}

export class SmsSetupDto {
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: 'TEST' | 'LIVE';
  @ApiProperty({ example: 'sslwireless' }) provider: string;
  @ApiProperty({ example: true }) configured: boolean;
}

export class SmsModeQuery {
  @ApiProperty({ enum: ['TEST', 'LIVE'] })
  @IsIn(['TEST', 'LIVE'])
  mode: 'TEST' | 'LIVE';
}
