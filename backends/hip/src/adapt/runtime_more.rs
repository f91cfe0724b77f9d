//! More Runtime API adaptations (memory, modules, streams, graphs, occupancy): see `mod.rs`.

#![allow(non_snake_case)]
