import { useSyncExternalStore } from 'react';
import { createSystem, defaultBaseConfig, defineConfig } from '@chakra-ui/react';
import {
  alertSlotRecipe,
  animationStyles,
  badgeRecipe,
  breakpoints,
  buttonRecipe,
  cardSlotRecipe,
  checkmarkRecipe,
  codeRecipe,
  cssVarsPrefix,
  cssVarsRoot,
  emptyStateSlotRecipe,
  fieldSlotRecipe,
  globalCss,
  headingRecipe,
  iconRecipe,
  inputAddonRecipe,
  inputRecipe,
  keyframes,
  layerStyles,
  linkRecipe,
  listSlotRecipe,
  nativeSelectSlotRecipe,
  radiomarkRecipe,
  semanticTokens,
  separatorRecipe,
  skeletonRecipe,
  spinnerRecipe,
  tabsSlotRecipe,
  textStyles,
  textareaRecipe,
  tokens,
} from '@chakra-ui/react/theme';

/**
 * Chakra's default theme (its `defaultConfig`) with the recipes of the components './ui.ts'
 * re-exports only: the full set styles ~80 components (date pickers, color pickers, comboboxes...)
 * and costs ~35 KiB gzip on every cold load. Same tokens, global CSS and text/layer styles. The
 * components ui.ts loads lazily bring their own recipes (ui-later.ts), so they are not here.
 * A component without its recipe renders unstyled WITHOUT any error, so
 * test/ui-recipes.test.ts walks Chakra's sources from every './ui.ts' export and fails on a
 * recipe missing here.
 */
const themeConfig = defineConfig({
  preflight: true,
  cssVarsPrefix,
  cssVarsRoot,
  globalCss,
  theme: {
    breakpoints,
    keyframes,
    tokens,
    semanticTokens,
    textStyles,
    layerStyles,
    animationStyles,
    recipes: {
      badge: badgeRecipe,
      button: buttonRecipe,
      checkmark: checkmarkRecipe,
      code: codeRecipe,
      heading: headingRecipe,
      icon: iconRecipe,
      input: inputRecipe,
      inputAddon: inputAddonRecipe,
      link: linkRecipe,
      radiomark: radiomarkRecipe,
      separator: separatorRecipe,
      skeleton: skeletonRecipe,
      spinner: spinnerRecipe,
      textarea: textareaRecipe,
    },
    slotRecipes: {
      alert: alertSlotRecipe,
      card: cardSlotRecipe,
      emptyState: emptyStateSlotRecipe,
      field: fieldSlotRecipe,
      list: listSlotRecipe,
      nativeSelect: nativeSelectSlotRecipe,
      tabs: tabsSlotRecipe,
    },
  },
});

/** The Chakra system every app renders with (the shell provides it; remotes inherit it). */
export const system = createSystem(
  defaultBaseConfig,
  themeConfig,
  defineConfig({
    theme: {
      tokens: {
        colors: {
          brand: {
            50: { value: '#f3effe' },
            100: { value: '#e2d8fd' },
            200: { value: '#c7b4fb' },
            300: { value: '#a685f7' },
            400: { value: '#8a5cf2' },
            500: { value: '#7239ea' },
            600: { value: '#5f27cd' },
            700: { value: '#4c1fa5' },
            800: { value: '#3a1980' },
            900: { value: '#2a135c' },
            950: { value: '#1a0b3b' },
          },
        },
      },
      semanticTokens: {
        colors: {
          brand: {
            solid: { value: '{colors.brand.500}' },
            contrast: { value: 'white' },
            fg: { value: { _light: '{colors.brand.600}', _dark: '{colors.brand.300}' } },
            muted: { value: { _light: '{colors.brand.100}', _dark: '{colors.brand.900}' } },
            subtle: { value: { _light: '{colors.brand.50}', _dark: '{colors.brand.950}' } },
            emphasized: { value: { _light: '{colors.brand.200}', _dark: '{colors.brand.800}' } },
            focusRing: { value: '{colors.brand.500}' },
            border: { value: { _light: '{colors.brand.200}', _dark: '{colors.brand.800}' } },
          },
        },
      },
    },
  }),
);

export type ThemePreference = 'light' | 'dark' | 'system';
export type ResolvedTheme = 'light' | 'dark';

export const THEME_STORAGE_KEY = 'aim.theme';
export const DEFAULT_THEME: ThemePreference = 'dark';

export function parseThemePreference(stored: string | null | undefined): ThemePreference {
  return stored === 'light' || stored === 'dark' || stored === 'system' ? stored : DEFAULT_THEME;
}

export function resolveTheme(preference: ThemePreference, systemPrefersDark: boolean): ResolvedTheme {
  if (preference === 'system') return systemPrefersDark ? 'dark' : 'light';
  return preference;
}

type ThemeState = { preference: ThemePreference; resolved: ResolvedTheme };
let themeState: ThemeState | null = null;
const themeListeners = new Set<() => void>();
const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)');

function readStored(): ThemePreference {
  try {
    return parseThemePreference(localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return DEFAULT_THEME;
  }
}

function apply(preference: ThemePreference) {
  const resolved = resolveTheme(preference, darkQuery().matches);
  // Chakra's _dark/_light conditions key off these classes on an ancestor.
  const root = document.documentElement;
  root.classList.toggle('dark', resolved === 'dark');
  root.classList.toggle('light', resolved === 'light');
  root.style.colorScheme = resolved;
  themeState = { preference, resolved };
  for (const l of themeListeners) l();
}

/** Applies the stored preference to <html> now; call before the first render to avoid a flash. */
export function initTheme(): void {
  apply(readStored());
  darkQuery().addEventListener('change', () => {
    if (themeState?.preference === 'system') apply('system');
  });
  window.addEventListener('storage', (event) => {
    if (event.key === THEME_STORAGE_KEY) apply(parseThemePreference(event.newValue));
  });
}

export function setThemePreference(preference: ThemePreference): void {
  try {
    localStorage.setItem(THEME_STORAGE_KEY, preference);
  } catch {
    // Storage can be disabled (privacy mode); the choice then lasts for this page only.
  }
  apply(preference);
}

export function useTheme(): ThemeState & { setPreference: (preference: ThemePreference) => void } {
  const state = useSyncExternalStore(
    (listener) => {
      themeListeners.add(listener);
      return () => themeListeners.delete(listener);
    },
    () => {
      if (!themeState) apply(readStored());
      return themeState as ThemeState;
    },
  );
  return { ...state, setPreference: setThemePreference };
}
