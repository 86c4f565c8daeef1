import { SetMetadata } from '@nestjs/common';

export const GATEWAY_ADAPTER = 'joma:gateway-adapter';

/**
 * Marks a provider as a payment gateway adapter (it implements
 * PaymentGateway). The registry finds every marked provider of the running
 * app, so adding a gateway is adding its module to the app, nothing else.
 */
export const GatewayAdapter = () => SetMetadata(GATEWAY_ADAPTER, true);
