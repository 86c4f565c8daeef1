import { useEffect, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime, num, parseTaka, taka } from '../format';
import {
  ErrorNote,
  Field,
  Ok,
  Pager,
  Screen,
  Select,
  Status,
  Table,
  useAction,
  useList,
} from '../ui';
import { valueLabel } from '../values';

type Product = components['schemas']['ProductDto'];
type Benefit = components['schemas']['BenefitDto'];
type Price = components['schemas']['PriceDto'];
type Interval = 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';
const INTERVALS: Interval[] = ['DAY', 'WEEK', 'MONTH', 'YEAR'];

/** Products with their prices, and benefits: create, edit, archive (decisions 20). */
export function CatalogScreen({ params }: { params: string[] }) {
  if (params[0] === 'products' && params[1]) return <ProductPage id={Number(params[1])} />;
  if (params[0] === 'benefits' && params[1]) return <BenefitPage id={Number(params[1])} />;
  return <CatalogLists />;
}

function usePriceText() {
  const { t, lang } = useCtx();
  return (p: Price) =>
    `${taka(p.amountMinor, lang)}${
      p.interval
        ? ` / ${p.intervalCount === 1 ? '' : `${num(p.intervalCount ?? 1, lang)} `}${valueLabel(p.interval, lang)}`
        : ''
    }${p.active ? '' : ` (${t('inactive')})`}`;
}

function CatalogLists() {
  const { t, app, can } = useCtx();
  const priceText = usePriceText();
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
  const write = can('catalog:write');
  return (
    <Screen title={t('Catalog')} allowed={can('invoices:read')}>
      <ErrorNote error={products.error ?? benefits.error} />
      <Table
        caption={t('Products')}
        rows={products.rows}
        loading={products.loading}
        columns={[
          { label: '#', cell: (p) => p.id },
          { label: t('Name'), cell: (p) => <a href={`#/catalog/products/${p.id}`}>{p.name}</a> },
          { label: t('Status'), cell: (p) => <Status value={String(p.status)} /> },
          {
            label: t('Prices'),
            cell: (p) => (p.prices as Price[]).map(priceText).join(', ') || '—',
          },
        ]}
      />
      <Pager list={products} />
      {write ? <NewProduct /> : null}
      <Table
        caption={t('Benefits')}
        rows={benefits.rows}
        loading={benefits.loading}
        columns={[
          {
            label: t('Lookup key'),
            cell: (b) => (
              <a href={`#/catalog/benefits/${b.id}`}>
                <code>{b.lookupKey}</code>
              </a>
            ),
          },
          { label: t('Name'), cell: (b) => b.name },
          { label: t('Active'), cell: (b) => (b.active ? t('Yes') : t('No')) },
        ]}
      />
      <Pager list={benefits} />
      {write ? <NewBenefit onCreated={() => benefits.reload()} /> : null}
    </Screen>
  );
}

function NewProduct() {
  const { t, app, go } = useCtx();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  return (
    <form
      class="form"
      aria-labelledby="new-product-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const res = await call<Product>(
            app.POST('/api/v1/products', {
              body: { name: name.trim(), description: description.trim() || undefined },
            }),
          );
          go(`catalog/products/${res.data.id}`);
        });
      }}
    >
      <h2 id="new-product-title">{t('New product')}</h2>
      <Field
        label={t('Name')}
        required
        maxLength={200}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <Field
        label={t('Description')}
        maxLength={4000}
        value={description}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <p class="hint">{t('A product is a draft until its first price.')}</p>
      <ErrorNote error={action.error} />
      <button type="submit" class="primary" disabled={action.busy}>
        {t('Create product')}
      </button>
    </form>
  );
}

function NewBenefit({ onCreated }: { onCreated: () => void }) {
  const { t, app } = useCtx();
  const empty = { lookupKey: '', name: '', metadata: '' };
  const [f, setF] = useState(empty);
  const action = useAction();
  return (
    <form
      class="form"
      aria-labelledby="new-benefit-title"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          await call(
            app.POST('/api/v1/benefits', {
              body: {
                lookupKey: f.lookupKey.trim(),
                name: f.name.trim(),
                metadata: f.metadata.trim() || undefined,
              },
            }),
          );
          setF(empty);
          onCreated();
        }, t('Created: activate it to have it granted.'));
      }}
    >
      <h2 id="new-benefit-title">{t('New benefit')}</h2>
      <Field
        label={t('Lookup key')}
        required
        maxLength={100}
        pattern="[A-Za-z0-9._:\-]+"
        hint={t('Unique in this mode; letters, digits and . _ : -')}
        value={f.lookupKey}
        onInput={(e) => setF({ ...f, lookupKey: e.currentTarget.value })}
      />
      <Field
        label={t('Name')}
        required
        maxLength={200}
        value={f.name}
        onInput={(e) => setF({ ...f, name: e.currentTarget.value })}
      />
      <Field
        label={t('Metadata')}
        maxLength={4000}
        value={f.metadata}
        onInput={(e) => setF({ ...f, metadata: e.currentTarget.value })}
      />
      <ErrorNote error={action.error} />
      <Ok text={action.done} />
      <button type="submit" class="primary" disabled={action.busy}>
        {t('Create benefit')}
      </button>
    </form>
  );
}

/** One product: edit its name and description, its prices, its benefits, archive it. */
function ProductPage({ id }: { id: number }) {
  const { t, lang, app, admin, can } = useCtx();
  const priceText = usePriceText();
  const [product, setProduct] = useState<Product | null>(null);
  const [benefits, setBenefits] = useState<Benefit[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [replacing, setReplacing] = useState<Price | null>(null);
  const [benefitId, setBenefitId] = useState('');
  const prices = useAction();
  const links = useAction();
  const archive = useAction();
  const show = (p: Product) => {
    setProduct(p);
  };
  const load = () =>
    call<Product>(app.GET('/api/v1/products/{id}', { params: { path: { id } } }))
      .then((r) => show(r.data))
      .catch(setError);
  useEffect(() => {
    void load();
    call<Benefit[]>(app.GET('/api/v1/benefits', { params: { query: { size: 100 } } }))
      .then((r) => setBenefits(r.data))
      .catch(() => undefined);
  }, [app, id]);
  const write = can('catalog:write');
  const archived = product?.status === 'ARCHIVED';
  const attached = (product?.benefits as Benefit[] | undefined) ?? [];
  const deactivate = (p: Price) =>
    prices.run(async () => {
      await call(
        app.POST('/api/v1/products/{id}/prices/{priceId}/deactivate', {
          params: { path: { id, priceId: p.id } },
        }),
      );
      await load();
    }, t('Deactivated: it can no longer be bought; subscriptions keep it.'));
  return (
    <Screen title={product?.name ?? t('Products')} allowed={can('invoices:read')}>
      <p>
        <a href="#/catalog">{t('Back')}</a>
      </p>
      <ErrorNote error={error} />
      {product ? (
        <>
          <dl class="facts">
            <dt>#</dt>
            <dd>{product.id}</dd>
            <dt>{t('Status')}</dt>
            <dd>
              <Status value={String(product.status)} />
            </dd>
            <dt>{t('Description')}</dt>
            <dd>{product.description || '—'}</dd>
            <dt>{t('Created')}</dt>
            <dd>{dateTime(product.createdAt, lang)}</dd>
          </dl>
          {write ? (
            <NameAndTextForm
              id="edit-product-title"
              title={t('Edit product')}
              textLabel={t('Description')}
              name={product.name}
              text={product.description ?? ''}
              save={async (name, text) =>
                show(
                  (
                    await call<Product>(
                      app.PATCH('/api/v1/products/{id}', {
                        params: { path: { id } },
                        body: { name, description: text },
                      }),
                    )
                  ).data,
                )
              }
            />
          ) : null}
          <Table
            caption={t('Prices')}
            rows={product.prices as Price[]}
            columns={[
              { label: '#', cell: (p) => p.id },
              { label: t('Price'), num: true, cell: (p) => priceText(p) },
              {
                label: t('Trial days'),
                num: true,
                cell: (p) => (p.trialDays ? num(p.trialDays, lang) : '—'),
              },
              { label: t('Active'), cell: (p) => (p.active ? t('Yes') : t('No')) },
              ...(write && !archived
                ? [
                    {
                      label: t('Action'),
                      cell: (p: Price) =>
                        p.active ? (
                          <span class="actions">
                            <button
                              type="button"
                              disabled={prices.busy}
                              onClick={() => setReplacing(p)}
                              aria-label={`${t('Edit')} #${p.id}`}
                            >
                              {t('Edit')}
                            </button>
                            <button
                              type="button"
                              disabled={prices.busy}
                              onClick={() => deactivate(p)}
                              aria-label={`${t('Deactivate')} #${p.id}`}
                            >
                              {t('Deactivate')}
                            </button>
                          </span>
                        ) : (
                          ''
                        ),
                    },
                  ]
                : []),
            ]}
          />
          <ErrorNote error={prices.error} />
          <Ok text={prices.done} />
          {write && !archived ? (
            <PriceForm
              key={replacing?.id ?? 'new'}
              productId={id}
              replacing={replacing}
              onDone={async () => {
                setReplacing(null);
                await load();
              }}
            />
          ) : null}
          <Table
            caption={t('Benefits')}
            rows={attached}
            columns={[
              { label: t('Lookup key'), cell: (b) => <code>{b.lookupKey}</code> },
              { label: t('Name'), cell: (b) => b.name },
              { label: t('Active'), cell: (b) => (b.active ? t('Yes') : t('No')) },
            ]}
          />
          {write ? (
            <form
              class="form"
              aria-labelledby="attach-title"
              onSubmit={(e) => {
                e.preventDefault();
                void links.run(async () => {
                  const res = await call<Product>(
                    admin.POST('/api/v1/admin/products/{id}/benefits', {
                      params: { path: { id } },
                      body: { benefitId: Number(benefitId) },
                    }),
                  );
                  show(res.data);
                }, t('Attached'));
              }}
            >
              <h2 id="attach-title">{t('Attach a benefit')}</h2>
              <Select
                label={t('Benefit')}
                required
                value={benefitId}
                onChange={(e) => setBenefitId(e.currentTarget.value)}
                options={[
                  ['', '—'],
                  ...benefits
                    .filter((b) => !attached.some((a) => a.id === b.id))
                    .map((b) => [String(b.id), `${b.name} (${b.lookupKey})`] as [string, string]),
                ]}
              />
              <ErrorNote error={links.error} />
              <Ok text={links.done} />
              <button type="submit" disabled={links.busy}>
                {t('Attach')}
              </button>
            </form>
          ) : null}
          {write && !archived ? (
            <section aria-labelledby="archive-title">
              <h2 id="archive-title">{t('Archive')}</h2>
              <p class="hint">
                {t('An archived product takes no new purchases or prices; subscriptions go on.')}
              </p>
              <ErrorNote error={archive.error} />
              <button
                type="button"
                class="danger"
                disabled={archive.busy}
                onClick={() =>
                  archive.run(async () => {
                    const res = await call<Product>(
                      admin.POST('/api/v1/admin/products/{id}/archive', {
                        params: { path: { id } },
                      }),
                    );
                    show(res.data);
                  })
                }
              >
                {t('Archive product')}
              </button>
            </section>
          ) : null}
          {archived ? <Ok text={t('Archived: no new purchases or prices.')} /> : null}
        </>
      ) : null}
    </Screen>
  );
}

/**
 * A new price; editing one is replacing it (a price never changes once
 * created, so subscriptions keep theirs): the new price is created, then the
 * old one deactivated.
 */
function PriceForm({
  productId,
  replacing,
  onDone,
}: {
  productId: number;
  replacing: Price | null;
  onDone: () => Promise<void>;
}) {
  const { t, lang, app } = useCtx();
  const [f, setF] = useState({
    type: (replacing?.type ?? 'ONE_TIME') as 'ONE_TIME' | 'RECURRING',
    amount: replacing ? taka(replacing.amountMinor, 'en').replace('৳', '') : '',
    interval: (replacing?.interval ?? 'MONTH') as Interval,
    count: String(replacing?.intervalCount ?? 1),
    trial: String(replacing?.trialDays ?? 0),
  });
  const action = useAction();
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(
      async () => {
        const amountMinor = parseTaka(f.amount);
        if (amountMinor === null || amountMinor < 1)
          throw new Error(`${t('Amount (taka)')}: ${t('an amount in taka, e.g. 5000 or 5000.50')}`);
        const body =
          f.type === 'ONE_TIME'
            ? { type: 'ONE_TIME' as const, amountMinor }
            : {
                type: 'RECURRING' as const,
                amountMinor,
                interval: f.interval,
                intervalCount: Number(f.count),
                trialDays: Number(f.trial),
              };
        await call(
          app.POST('/api/v1/products/{id}/prices', { params: { path: { id: productId } }, body }),
        );
        if (replacing)
          await call(
            app.POST('/api/v1/products/{id}/prices/{priceId}/deactivate', {
              params: { path: { id: productId, priceId: replacing.id } },
            }),
          );
        await onDone();
      },
      replacing ? t('Replaced: the new price is on sale, the old one is not.') : t('Created'),
    );
  };
  return (
    <form class="form" onSubmit={save} aria-labelledby="price-title">
      <h2 id="price-title">{replacing ? `${t('Edit price')} #${replacing.id}` : t('New price')}</h2>
      {replacing ? (
        <p class="hint">
          {t(
            'Prices never change once created: saving adds this price and deactivates the old one. Subscriptions keep what they have.',
          )}
        </p>
      ) : null}
      <Select
        label={t('Type')}
        value={f.type}
        onChange={(e) => setF({ ...f, type: e.currentTarget.value as 'ONE_TIME' | 'RECURRING' })}
        options={[
          ['ONE_TIME', t('One-time')],
          ['RECURRING', t('Recurring')],
        ]}
      />
      <Field
        label={t('Amount (taka)')}
        inputMode="decimal"
        required
        placeholder={taka(150000, lang)}
        value={f.amount}
        onInput={(e) => setF({ ...f, amount: e.currentTarget.value })}
      />
      {f.type === 'RECURRING' ? (
        <>
          <Field
            label={t('Every (count)')}
            type="number"
            min="1"
            required
            value={f.count}
            onInput={(e) => setF({ ...f, count: e.currentTarget.value })}
          />
          <Select
            label={t('Interval')}
            value={f.interval}
            onChange={(e) => setF({ ...f, interval: e.currentTarget.value as Interval })}
            options={INTERVALS.map((i) => [i, valueLabel(i, lang)] as [string, string])}
          />
          <Field
            label={t('Trial days')}
            type="number"
            min="0"
            max="730"
            value={f.trial}
            onInput={(e) => setF({ ...f, trial: e.currentTarget.value })}
          />
        </>
      ) : null}
      <ErrorNote error={action.error} />
      <Ok text={action.done} />
      <span class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {replacing ? t('Replace price') : t('Add price')}
        </button>
        {replacing ? (
          <button type="button" onClick={() => void onDone()}>
            {t('Cancel')}
          </button>
        ) : null}
      </span>
    </form>
  );
}

/** One benefit: edit its name and metadata, activate it. */
function BenefitPage({ id }: { id: number }) {
  const { t, lang, app, can } = useCtx();
  const [benefit, setBenefit] = useState<Benefit | null>(null);
  const [error, setError] = useState<unknown>(null);
  const activate = useAction();
  const show = (b: Benefit) => {
    setBenefit(b);
  };
  useEffect(() => {
    call<Benefit>(app.GET('/api/v1/benefits/{id}', { params: { path: { id } } }))
      .then((r) => show(r.data))
      .catch(setError);
  }, [app, id]);
  const write = can('catalog:write');
  return (
    <Screen title={benefit?.name ?? t('Benefits')} allowed={can('invoices:read')}>
      <p>
        <a href="#/catalog">{t('Back')}</a>
      </p>
      <ErrorNote error={error} />
      {benefit ? (
        <>
          <dl class="facts">
            <dt>{t('Lookup key')}</dt>
            <dd>
              <code>{benefit.lookupKey}</code>
            </dd>
            <dt>{t('Active')}</dt>
            <dd>{benefit.active ? t('Yes') : t('No')}</dd>
            <dt>{t('Created')}</dt>
            <dd>{dateTime(benefit.createdAt, lang)}</dd>
          </dl>
          {write && !benefit.active ? (
            <div class="actions-row">
              <ErrorNote error={activate.error} />
              <button
                type="button"
                class="primary"
                disabled={activate.busy}
                onClick={() =>
                  activate.run(async () => {
                    const res = await call<Benefit>(
                      app.POST('/api/v1/benefits/{id}/activate', { params: { path: { id } } }),
                    );
                    show(res.data);
                  })
                }
              >
                {t('Activate')}
              </button>
            </div>
          ) : null}
          {write ? (
            <NameAndTextForm
              id="edit-benefit-title"
              title={t('Edit benefit')}
              textLabel={t('Metadata')}
              name={benefit.name}
              text={benefit.metadata ?? ''}
              save={async (name, text) =>
                show(
                  (
                    await call<Benefit>(
                      app.PATCH('/api/v1/benefits/{id}', {
                        params: { path: { id } },
                        body: { name, metadata: text },
                      }),
                    )
                  ).data,
                )
              }
            />
          ) : null}
        </>
      ) : null}
    </Screen>
  );
}

/**
 * A record's name and one free-text field (a product's description, a
 * benefit's metadata), saved together; an emptied text is sent as null.
 */
function NameAndTextForm(props: {
  id: string;
  title: string;
  textLabel: string;
  name: string;
  text: string;
  save: (name: string, text: string | null) => Promise<void>;
}) {
  const { t } = useCtx();
  const [f, setF] = useState({ name: props.name, text: props.text });
  useEffect(() => setF({ name: props.name, text: props.text }), [props.name, props.text]);
  const edit = useAction();
  return (
    <form
      class="form"
      aria-labelledby={props.id}
      onSubmit={(e) => {
        e.preventDefault();
        void edit.run(() => props.save(f.name.trim(), f.text.trim() || null), t('Saved'));
      }}
    >
      <h2 id={props.id}>{props.title}</h2>
      <Field
        label={t('Name')}
        required
        maxLength={200}
        value={f.name}
        onInput={(e) => setF({ ...f, name: e.currentTarget.value })}
      />
      <Field
        label={props.textLabel}
        maxLength={4000}
        value={f.text}
        onInput={(e) => setF({ ...f, text: e.currentTarget.value })}
      />
      <ErrorNote error={edit.error} />
      <Ok text={edit.done} />
      <button type="submit" class="primary" disabled={edit.busy}>
        {t('Save')}
      </button>
    </form>
  );
}
