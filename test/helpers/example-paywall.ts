/** The example paywall document (two variants, en + de, an audience), verbatim: shared by the document tests and the HTTP tests; it imports no server, so tests without HTTP can use it. */
export function example(): Record<string, any> {
  return {
    name: 'Onboarding',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' }, de: { title: 'Werde Pro' } },
    slots: { primary: 'pro_annual', secondary: 'pro_monthly' },
    root: {
      type: 'stack',
      props: { axis: 'vertical' },
      children: [
        { type: 'text', props: { text_key: 'title' } },
        { type: 'product', props: { slot: 'primary' } },
        { type: 'purchase_button', props: { slot: 'primary', text: 'Continue' } },
      ],
    },
    variants: [
      { id: 'control', weight: 50 },
      { id: 'annual_first', weight: 50, slots: { primary: 'pro_monthly' } },
    ],
    audiences: [{ id: 'us_ios', when: { country: 'US', platform: 'ios' }, weights: { annual_first: 100 } }],
  };
}
