/** The customers feature's public door. */
export { CustomersModule } from './customers.module';
export { type Customer, CustomersService } from './customers.service';
export {
  CUSTOMER_REFERENCE,
  CustomerFieldsDto,
  CustomerMessagingFieldsDto,
} from './dto/customer-fields.dto';
