/** The cost engine's public API. */
export * from './facts';
export * from './types';
export * from './dtypes';
export * from './units';
export * from './devices';
export * from './budget';
export * from './timeline';
export * from './threefry';
export * from './accelerate';
export * from './estimate';
export * from './training';
export * from './activations';
export * from './kvcache';
export * from './fitsWhere';
export * from './advice';
export * from './timelineSeries';
