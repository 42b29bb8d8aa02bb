import { useState } from 'react';
import { Badge, Button, Card, HStack, SimpleGrid, Slider, Stack, Text } from '@aim/shared-kit/ui';
import { SCALE_SLIDER, type Plan } from '@aim/shared-kit/domain';
import { formatCredits } from '@aim/shared-kit/format';
import { FIXED_PLANS, formatUsd, planButton, SCALE_DEFAULT, scaleOffer, type Account } from './plan-rules.ts';

type Props = {
  account: Account;
  /** The plan whose checkout is starting, if any: its button spins, the others wait. */
  starting: string | null;
  onChoose: (plan: Plan) => void;
};

/** Basic, Starter, Growth (Most Popular) and Scale with its volume slider. */
export function PlanCards({ account, starting, onChoose }: Props) {
  const [scale, setScale] = useState(SCALE_DEFAULT);
  const offer = scaleOffer(scale);
  return (
    <SimpleGrid columns={{ base: 1, md: 2, xl: 4 }} gap="4" data-testid="plan-cards">
      {FIXED_PLANS.map((plan) => (
        <PlanCard key={plan.id} testId={plan.id} plan={plan} popular={plan.popular} account={account} starting={starting} onChoose={onChoose}>
          <Text textStyle="sm" color="fg.muted">
            {formatCredits(plan.credits)} credits every month
          </Text>
        </PlanCard>
      ))}
      <PlanCard testId="scale" plan={offer} popular={false} account={account} starting={starting} onChoose={onChoose}>
        <Stack gap="3">
          <Text textStyle="sm" color="fg.muted">
            {formatCredits(offer.credits)} credits every month
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
            {formatCredits(offer.imagesDaily)} images daily
          </Text>
          <Badge variant="subtle" colorPalette="green" alignSelf="flex-start">
            50% off · double bonus
          </Badge>
        </Stack>
      </PlanCard>
    </SimpleGrid>
  );
}

type CardProps = Omit<Props, 'onChoose'> & {
  testId: string;
  plan: Plan;
  popular: boolean;
  onChoose: (plan: Plan) => void;
  children: React.ReactNode;
};

function PlanCard({ testId, plan, popular, account, starting, onChoose, children }: CardProps) {
  const button = planButton(plan.id, account);
  return (
    <Card.Root
      variant="outline"
      borderColor={popular ? 'brand.solid' : undefined}
      borderWidth={popular ? '2px' : undefined}
      data-testid={`plan-card-${testId}`}
      data-plan={plan.id}
    >
      <Card.Header>
        <HStack justify="space-between" gap="2">
          <Card.Title>{plan.name}</Card.Title>
          {popular && (
            <Badge colorPalette="brand" variant="solid">
              Most Popular
            </Badge>
          )}
        </HStack>
        <HStack align="baseline" gap="1">
          <Text fontSize="3xl" fontWeight="bold" data-testid="plan-price">
            {formatUsd(plan.priceUsd)}
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
          disabled={button.disabled || (starting !== null && starting !== plan.id)}
          loading={starting === plan.id}
          onClick={() => onChoose(plan)}
        >
          {button.label}
        </Button>
      </Card.Footer>
    </Card.Root>
  );
}
