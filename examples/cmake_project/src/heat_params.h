#ifndef HEAT_PARAMS_H
#define HEAT_PARAMS_H

#ifndef HEAT_ALPHA
#define HEAT_ALPHA 0.1 /* diffusion number; stable below 0.25 */
#endif

#endif
