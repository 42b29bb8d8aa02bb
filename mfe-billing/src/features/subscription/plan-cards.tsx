import { useState } from 'react';
import { Badge, Button, Card, HStack, SimpleGrid, Slider, Stack, Text } from '@aim/shared-kit/ui';
import { SCALE_SLIDER, scaleImagesDaily } from '@aim/shared-kit/domain';
import { formatCredits } from '@aim/shared-kit/format';
import type { CatalogPlan } from '../../gateway/billing-gateway.ts';
import { fixedPlans, formatUsd, planButton, SCALE_DEFAULT, scaleOffer, type Account } from './plan-rules.ts';

type Props = {
  account: Account;
  /** The server catalog's plans (GET /billing/config). */
  plans: readonly CatalogPlan[];
  /** The plan whose checkout is starting, if any: its button spins, the others wait. */
  starting: string | null;
  onChoose: (plan: CatalogPlan) => void;
};

/** Basic, Starter, Growth (Most Popular) and Scale with its volume slider, priced from the catalog. */
export function PlanCards({ account, plans, starting, onChoose }: Props) {
  const [scale, setScale] = useState(SCALE_DEFAULT);
  const offer = scaleOffer(plans, scale);
  return (
    <SimpleGrid columns={{ base: 1, md: 2, xl: 4 }} gap="4" data-testid="plan-cards">
      {fixedPlans(plans).map((plan) => (
        <PlanCard
          key={plan.id}
          testId={plan.id}
          title={plan.label}
          plan={plan}
          popular={plan.popular}
          account={account}
          starting={starting}
          onChoose={onChoose}
        >
          <Text textStyle="sm" color="fg.muted">
            {formatCredits(plan.credits)} credits every month
          </Text>
        </PlanCard>
      ))}
      <PlanCard testId="scale" title="Scale" plan={offer} popular={false} account={account} starting={starting} onChoose={onChoose}>
        <Stack gap="3">
          <Text textStyle="sm" color="fg.muted" data-testid="scale-tier">
            {offer ? `${offer.label}: ${formatCredits(offer.credits)} credits every month` : 'Not available'}
          </Text>
          <Slider.Root
            min={SCALE_SLIDER.min}
            max={SCALE_SLIDER.max}
            step={SCALE_SLIDER.step}
            value={[scale]}
            onValueChange={(e) => setScale(e.value[0] ?? SCALE_DEFAULT)}
            colorPalette="brand"
            size="sm"
            data-testid="scale-slider"
          >
            <Slider.Label srOnly>Scale volume</Slider.Label>
            <Slider.Control>
              <Slider.Track>
                <Slider.Range />
              </Slider.Track>
              <Slider.Thumbs />
            </Slider.Control>
          </Slider.Root>
          <Text textStyle="sm" fontWeight="semibold" data-testid="scale-images-daily">
            {formatCredits(scaleImagesDaily(scale))} images daily
          </Text>
          <Badge variant="subtle" colorPalette="green" alignSelf="flex-start">
            50% off · double bonus
          </Badge>
        </Stack>
      </PlanCard>
    </SimpleGrid>
  );
}

type CardProps = Omit<Props, 'plans'> & {
  testId: string;
  title: string;
  /** Null when the catalog lacks the plan (a Scale tier): no price, nothing to buy. */
  plan: CatalogPlan | null;
  popular: boolean;
  children: React.ReactNode;
};

function PlanCard({ testId, title, plan, popular, account, starting, onChoose, children }: CardProps) {
  const button = plan ? planButton(plan.id, account) : { label: 'Subscribe', disabled: true };
  return (
    <Card.Root
      variant="outline"
      borderColor={popular ? 'brand.solid' : undefined}
      borderWidth={popular ? '2px' : undefined}
      data-testid={`plan-card-${testId}`}
      data-plan={plan?.id}
    >
      <Card.Header>
        <HStack justify="space-between" gap="2">
          <Card.Title>{title}</Card.Title>
          {popular && (
            <Badge colorPalette="brand" variant="solid">
              Most Popular
            </Badge>
          )}
        </HStack>
        <HStack align="baseline" gap="1">
          <Text fontSize="3xl" fontWeight="bold" data-testid="plan-price">
            {plan ? formatUsd(plan.amount) : '—'}
          </Text>
          <Text color="fg.muted">/ month</Text>
        </HStack>
      </Card.Header>
      <Card.Body>{children}</Card.Body>
      <Card.Footer>
        <Button
          w="full"
          colorPalette="brand"
          variant={button.disabled ? 'subtle' : popular ? 'solid' : 'outline'}
          disabled={button.disabled || (starting !== null && starting !== plan?.id)}
          loading={!!plan && starting === plan.id}
          onClick={() => plan && onChoose(plan)}
        >
          {button.label}
        </Button>
      </Card.Footer>
    </Card.Root>
  );
}
