// Helpers for the onboarding journeys: the stored theme, and what the server holds afterwards.
import { expect, type BrowserContext, type Page } from '@playwright/test';
import { serviceClient } from './users.ts';

/** Starts every page of `context` in the given theme, as if the user had chosen it before. */
export async function useTheme(context: BrowserContext, theme: 'light' | 'dark'): Promise<void> {
  await context.addInitScript((value) => {
    if (!localStorage.getItem('aim.theme')) localStorage.setItem('aim.theme', value);
  }, theme);
}

/** mdusers.onboarded as the server holds it. */
export async function readOnboarded(userId: string): Promise<boolean> {
  const { data, error } = await serviceClient().from('mdusers').select('onboarded').eq('id', userId).single();
  if (error) throw new Error(`GET /rest/v1/mdusers?id=eq.${userId}: ${error.message}`);
  return (data as { onboarded: boolean }).onboarded;
}

/** The user's tasks (id, type, prompt), as stored. */
export async function readTasksOf(email: string): Promise<Array<{ id: string; type: string; prompt: string | null }>> {
  const { data, error } = await serviceClient().from('tasks').select('id, type, prompt').eq('email', email);
  if (error) throw new Error(`GET /rest/v1/tasks?email=eq.${email}: ${error.message}`);
  return data as Array<{ id: string; type: string; prompt: string | null }>;
}

/** Picks a radio card by clicking the card, as a person does (its native input is visually hidden). */
export async function chooseCard(page: Page, name: string): Promise<void> {
  const radio = page.getByRole('radio', { name, exact: true });
  await page.locator('label', { has: radio }).click();
  await expect(radio).toBeChecked();
}
