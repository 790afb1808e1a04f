/** The gallery's templates, as data: one JSON file each in documents/, listed here in the order they are shown. */
import annualVsMonthly from './documents/annual-vs-monthly.json' with { type: 'json' };
import countdownSale from './documents/countdown-sale.json' with { type: 'json' };
import featureCarousel from './documents/feature-carousel.json' with { type: 'json' };
import freeTrialToggle from './documents/free-trial-toggle.json' with { type: 'json' };
import lifetimeUnlock from './documents/lifetime-unlock.json' with { type: 'json' };
import singleProduct from './documents/single-product.json' with { type: 'json' };
import videoHero from './documents/video-hero.json' with { type: 'json' };
import winBack from './documents/win-back.json' with { type: 'json' };
import type { Template } from './schema.ts';

/** Each file is checked as a paywall document by test/templates/ (it validates and publishes); the cast states what that test holds. */
export const TEMPLATES: readonly Template[] = [
  singleProduct,
  annualVsMonthly,
  freeTrialToggle,
  featureCarousel,
  countdownSale,
  winBack,
  lifetimeUnlock,
  videoHero,
] as unknown as Template[];
