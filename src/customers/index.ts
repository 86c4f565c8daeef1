/** The customers feature's public door. */
export { toCustomerDto } from './customer.mapper';
export { CustomersModule } from './customers.module';
export { type Customer, CustomersService } from './customers.service';
export { CustomerDto, CustomerListQuery } from './dto/customer.dto';
export {
  CUSTOMER_REFERENCE,
  CustomerFieldsDto,
  CustomerMessagingFieldsDto,
} from './dto/customer-fields.dto';
