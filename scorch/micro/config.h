#pragma once
// The micro runtime's one build switch. Freestanding builds (SCORCH_FREESTANDING) and hosted code that asks for it
// (SCORCH_MICRO_RETURN_STATUS) get errors back as a Status; every other hosted build throws scorch::Error. The policy
// names an inline namespace, so a hosted program can link both (tests do).
#if defined(SCORCH_FREESTANDING) || defined(SCORCH_MICRO_RETURN_STATUS)
#define SCORCH_MICRO_THROWS 0
#define SCORCH_MICRO_POLICY returns_status
#else
#define SCORCH_MICRO_THROWS 1
#define SCORCH_MICRO_POLICY throws_error
#endif
