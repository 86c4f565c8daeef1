import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { taka } from '../format';
import { ErrorNote, Pager, Screen, Status, Table, useList } from '../ui';

type Product = components['schemas']['ProductDto'];
type Benefit = components['schemas']['BenefitDto'];
type Price = components['schemas']['PriceDto'];

/** Products with their prices, and benefits. */
export function CatalogScreen() {
  const { t, lang, app, can } = useCtx();
  const products = useList<Product>(
    (cursor) =>
      call<Product[]>(app.GET('/api/v1/products', { params: { query: { size: 20, cursor } } })),
    [app],
  );
  const benefits = useList<Benefit>(
    (cursor) =>
      call<Benefit[]>(app.GET('/api/v1/benefits', { params: { query: { size: 20, cursor } } })),
    [app],
  );
  const price = (p: Price) =>
    `${taka(p.amountMinor, lang)}${p.interval ? ` / ${p.intervalCount} ${p.interval}` : ''}${p.active ? '' : ' (×)'}`;
  return (
    <Screen title={t('Catalog')} allowed={can('invoices:read')}>
      <ErrorNote error={products.error ?? benefits.error} />
      <Table
        caption={t('Products')}
        rows={products.rows}
        loading={products.loading}
        columns={[
          { label: '#', cell: (p) => p.id },
          { label: t('Name'), cell: (p) => p.name },
          { label: t('Status'), cell: (p) => <Status value={String(p.status)} /> },
          { label: t('Prices'), cell: (p) => (p.prices as Price[]).map(price).join(', ') || '—' },
        ]}
      />
      <Pager list={products} />
      <Table
        caption={t('Benefits')}
        rows={benefits.rows}
        loading={benefits.loading}
        columns={[
          { label: 'Key', cell: (b) => <code>{b.lookupKey}</code> },
          { label: t('Name'), cell: (b) => b.name },
          { label: t('Active'), cell: (b) => (b.active ? t('Yes') : t('No')) },
        ]}
      />
      <Pager list={benefits} />
    </Screen>
  );
}
