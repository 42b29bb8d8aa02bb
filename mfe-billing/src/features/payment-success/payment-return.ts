/**
 * What a return to /payment-success says happened, read from the parameters Stripe appends to
 * the return URL (`setup_intent` or `payment_intent`, and `redirect_status`). The server
 * records the outcome from the provider's event; this only tells the user. Without a result
 * to show (no parameters, or ones it does not know) there is nothing to report: the page
 * sends the user to Payment Methods instead of claiming something happened.
 */
export type PaymentReturn = { title: string; text: string; tone: 'success' | 'info' | 'error' } | null;

/**
 * @example
 * paymentReturn(new URLSearchParams('setup_intent=seti_1&redirect_status=succeeded')).title // 'Card saved'
 * paymentReturn(new URLSearchParams('')) // null
 */
export function paymentReturn(params: URLSearchParams): PaymentReturn {
  const status = params.get('redirect_status');
  if (params.get('setup_intent')) {
    if (status === 'succeeded') return { title: 'Card saved', text: 'Your card was added to your payment methods.', tone: 'success' };
    if (status === 'processing') {
      return { title: 'Card being confirmed', text: 'Your bank is still confirming the card. It appears under Payment Methods once confirmed.', tone: 'info' };
    }
    if (status === 'failed') return { title: 'Setup failed', text: 'Your card could not be confirmed. Please try again or use another card.', tone: 'error' };
    return null;
  }
  if (params.get('payment_intent')) {
    if (status === 'succeeded') return { title: 'Payment successful', text: 'Thank you. Your plan and credits update in a moment.', tone: 'success' };
    if (status === 'processing') {
      return { title: 'Payment processing', text: 'Your bank is still confirming the payment. Your credits arrive once it succeeds.', tone: 'info' };
    }
    if (status === 'failed') return { title: 'Payment failed', text: 'Your card was not charged. Please try again or use another card.', tone: 'error' };
    return null;
  }
  return null;
}
