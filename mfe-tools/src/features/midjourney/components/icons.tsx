import { Icon, type IconProps } from '@aim/shared-kit/ui';

// Line icons drawn here (the remote ships no icon set): 24×24, currentColor, decorative.
const PATHS = {
  chevronDown: 'M6 9l6 6 6-6',
  up: 'M12 19V5M5 12l7-7 7 7',
  down: 'M12 5v14M19 12l-7 7-7-7',
  left: 'M19 12H5M12 19l-7-7 7-7',
  right: 'M5 12h14M12 5l7 7-7 7',
} as const;

export type IconName = keyof typeof PATHS;

export function LineIcon({ name, ...props }: IconProps & { name: IconName }) {
  return (
    <Icon {...props} asChild>
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        focusable="false"
      >
        <path d={PATHS[name]} />
      </svg>
    </Icon>
  );
}
