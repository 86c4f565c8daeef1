/** The purchases feature's public door. */
export { PurchasesModule } from './purchases.module';
export { PurchasesService } from './purchases.service';
