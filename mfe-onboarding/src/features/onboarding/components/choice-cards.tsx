import type { ReactNode } from 'react';
import { RadioCard, SimpleGrid, Square, type SimpleGridProps } from '@aim/shared-kit/ui';
import type { Option } from '../onboarding-model.ts';

type Props<T extends string> = {
  label: string;
  options: Array<Option<T> & { icon?: ReactNode }>;
  value: T;
  onChange: (value: T) => void;
  disabled?: boolean;
  columns: SimpleGridProps['columns'];
  size?: 'sm' | 'md';
  testId: string;
};

/**
 * A radio group drawn as cards. The cards are native radio inputs under role="radiogroup", so
 * Tab enters the group at the checked card and the arrow keys move the choice.
 */
export function ChoiceCards<T extends string>({ label, options, value, onChange, disabled, columns, size = 'md', testId }: Props<T>) {
  return (
    <RadioCard.Root
      value={value}
      onValueChange={(details) => details.value && onChange(details.value as T)}
      disabled={disabled}
      colorPalette="brand"
      size={size}
      variant="outline"
      data-testid={testId}
    >
      <RadioCard.Label textStyle="sm" fontWeight="medium" mb="2">
        {label}
      </RadioCard.Label>
      <SimpleGrid columns={columns} gap="3">
        {options.map((option) => (
          <RadioCard.Item key={option.value} value={option.value} data-testid={`${testId}-${option.value}`}>
            <RadioCard.ItemHiddenInput />
            <RadioCard.ItemControl>
              <RadioCard.ItemContent gap={option.description ? '1.5' : '0'}>
                {option.icon && (
                  <Square size="9" rounded="l2" bg="brand.subtle" color="brand.fg" borderWidth="1px" borderColor="brand.border" mb="1.5">
                    {option.icon}
                  </Square>
                )}
                <RadioCard.ItemText fontWeight={option.description ? 'semibold' : undefined}>{option.label}</RadioCard.ItemText>
                {option.description && <RadioCard.ItemDescription>{option.description}</RadioCard.ItemDescription>}
              </RadioCard.ItemContent>
              <RadioCard.ItemIndicator />
            </RadioCard.ItemControl>
          </RadioCard.Item>
        ))}
      </SimpleGrid>
    </RadioCard.Root>
  );
}
