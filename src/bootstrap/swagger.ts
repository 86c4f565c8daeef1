import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

import { ADMIN_BEARER_SCHEME, APP_KEY_SCHEME, APP_SECRET_SCHEME } from '../auth/decorators';
import { AppConfig } from '../config/app-config';
import { finishOpenApiDocument } from './openapi-document';
import { dtoClassesOf, paramDtosOf } from './openapi-validation-rules';

/** The OpenAPI document of the app's routes, with both security schemes. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Joma API')
    .setDescription(
      'Payment collection for Bangladeshi taka (BDT). Money is integer minor units (poisha). ' +
        'Every response uses the envelope {data, meta, pagination}. App calls authenticate with ' +
        "X-Api-Key + X-Api-Secret (the key's mode, TEST or LIVE, selects the data partition); " +
        'admin calls with Authorization: Bearer <token> from POST /api/v1/auth/login.',
    )
    .setVersion('1')
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'X-Api-Key',
        description: 'pk_test_... or pk_live_...',
      },
      APP_KEY_SCHEME,
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'X-Api-Secret',
        description: 'sk_test_... or sk_live_...',
      },
      APP_SECRET_SCHEME,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Admin session token' },
      ADMIN_BEARER_SCHEME,
    )
    .build();
  return finishOpenApiDocument(
    SwaggerModule.createDocument(app, config),
    app.get(AppConfig).publicBaseUrl,
    dtoClassesOf(app),
    paramDtosOf(app),
  );
}

/**
 * Swagger UI at /docs, OpenAPI JSON at /docs-json. `document` is the app's
 * own (buildOpenApiDocument); the test app factory passes one it built for an
 * identical app earlier in the same process, which saves the build per boot.
 */
export function setupSwagger(
  app: INestApplication,
  document: OpenAPIObject = buildOpenApiDocument(app),
): void {
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
}
