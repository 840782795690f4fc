//! The store port's contract, run against both adapters.

use std::collections::BTreeMap;
use std::sync::Arc;

use api_tests::store_contract;
use web::store::*;

fn uniq() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

fn item(pk: &str, sk: &str, body: &str) -> Item {
    Item { pk: pk.into(), sk: sk.into(), version: 1, body: body.into(), ..Item::default() }
}

fn sks(p: &Page) -> Vec<String> {
    p.items.iter().map(|i| i.sk.clone()).collect()
}

store_contract! {
    async fn items_over_the_size_limit_are_refused_by_every_write(s: Store) {
        let pk = uniq();
        // Just under the limit is stored; just over is refused, and nothing is written.
        let room = MAX_ITEM_BYTES - item(&pk, "ok", "").size();
        s.put(item(&pk, "ok", &"x".repeat(room)), Cond::None).await.unwrap();
        assert_eq!(s.get(&Key::new(&pk, "ok")).await.unwrap().unwrap().size(), MAX_ITEM_BYTES);
        let big = item(&pk, "big", &"x".repeat(MAX_ITEM_BYTES));
        assert!(matches!(s.put(big.clone(), Cond::None).await, Err(StoreError::ItemTooLarge { .. })));
        let tx = vec![TxOp::Put(item(&pk, "small", "{}"), Cond::NotExists), TxOp::Put(big.clone(), Cond::None)];
        assert!(matches!(s.transact(tx).await, Err(StoreError::ItemTooLarge { .. })));
        assert!(matches!(s.batch_write(vec![item(&pk, "b1", "{}"), big], vec![]).await, Err(StoreError::ItemTooLarge { .. })));
        for sk in ["big", "small", "b1"] {
            assert_eq!(s.get(&Key::new(&pk, sk)).await.unwrap(), None, "{sk} was written");
        }
    }

    async fn empty_and_over_long_key_values_are_refused_alike(s: Store) {
        let pk = uniq();
        let invalid = |r: Result<(), StoreError>, what: &str| {
            assert!(matches!(&r, Err(StoreError::Invalid(m)) if m.contains("key value")), "{what}: {r:?}");
        };
        let long_pk = "p".repeat(MAX_PK_BYTES + 1);
        let long_sk = "s".repeat(MAX_SK_BYTES + 1);
        for (p, k) in [("", "a"), (pk.as_str(), ""), (long_pk.as_str(), "a"), (pk.as_str(), long_sk.as_str())] {
            let what = format!("pk {} bytes, sk {} bytes", p.len(), k.len());
            invalid(s.put(item(p, k, "{}"), Cond::None).await, &what);
            invalid(s.get(&Key::new(p, k)).await.map(|_| ()), &what);
            invalid(s.delete(&Key::new(p, k), Cond::None).await, &what);
            invalid(s.add(&Key::new(p, k), &[("n".into(), 1)], Cond::None).await.map(|_| ()), &what);
            invalid(s.batch_get(&[Key::new(p, k)]).await.map(|_| ()), &what);
            invalid(s.batch_write(vec![], vec![Key::new(p, k)]).await, &what);
            invalid(s.transact(vec![TxOp::Put(item(p, k, "{}"), Cond::None)]).await, &what);
        }
        let mut indexed = item(&pk, "a", "{}");
        indexed.gsi1 = Some((String::new(), "k".into()));
        invalid(s.put(indexed, Cond::None).await, "an empty index key");
        // Queries: an empty partition, an empty bound, an empty cursor.
        invalid(s.query(Query::partition("")).await.map(|_| ()), "empty pk");
        for c in [SkCond::Eq(String::new()), SkCond::BeginsWith(String::new()), SkCond::Gt(String::new()), SkCond::Between(String::new(), "z".into())] {
            invalid(s.query(Query::partition(&pk).sk(c.clone())).await.map(|_| ()), &format!("{c:?}"));
        }
        let cursor = Cursor { pk: pk.clone(), sk: String::new(), index_key: None };
        invalid(s.query(Query::partition(&pk).after(Some(cursor))).await.map(|_| ()), "empty cursor");
        // Just at the limits is fine, and nothing above was written.
        let at = item(&"p".repeat(MAX_PK_BYTES), &"s".repeat(MAX_SK_BYTES), "{}");
        s.put(at.clone(), Cond::None).await.unwrap();
        assert!(s.get(&at.key()).await.unwrap().is_some());
        assert!(s.query(Query::partition(&pk)).await.unwrap().items.is_empty());
    }

    async fn put_get_round_trips_every_attribute(s: Store) {
        let pk = uniq();
        let mut it = item(&pk, "a", "{\"x\":1}");
        it.gsi1 = Some(("g1".into(), "k1".into()));
        it.gsi2 = Some(("g2".into(), "k2".into()));
        it.version = 7;
        it.expires_at = Some(1_900_000_000);
        // A put that creates the item starts its counters; later they belong to `add`.
        it.counters = BTreeMap::from([("hits".to_string(), 3)]);
        s.put(it.clone(), Cond::None).await.unwrap();
        let got = s.get(&Key::new(&pk, "a")).await.unwrap().unwrap();
        assert_eq!(got, it.clone());
        // Counters survive later puts, and adds leave the version alone.
        s.add(&Key::new(&pk, "a"), &[("hits".into(), 2)], Cond::Version(7)).await.unwrap();
        let mut next = it.clone();
        next.version = 8;
        next.gsi2 = None;
        next.expires_at = None;
        next.counters = BTreeMap::new();
        s.put(next.clone(), Cond::Version(7)).await.unwrap();
        let got = s.get(&Key::new(&pk, "a")).await.unwrap().unwrap();
        assert_eq!(got, Item { counters: BTreeMap::from([("hits".to_string(), 5)]), ..next });
        assert_eq!(s.get(&Key::new(&pk, "missing")).await.unwrap(), None);
    }

    async fn conditional_writes(s: Store) {
        let pk = uniq();
        let k = Key::new(&pk, "r");
        assert_eq!(s.put(item(&pk, "r", "a"), Cond::Exists).await, Err(StoreError::ConditionFailed));
        assert_eq!(s.put(item(&pk, "r", "a"), Cond::Version(1)).await, Err(StoreError::ConditionFailed));
        s.put(item(&pk, "r", "a"), Cond::NotExists).await.unwrap();
        assert_eq!(s.put(item(&pk, "r", "b"), Cond::NotExists).await, Err(StoreError::ConditionFailed));
        assert_eq!(s.put(Item { version: 3, ..item(&pk, "r", "b") }, Cond::Version(2)).await, Err(StoreError::ConditionFailed));
        s.put(Item { version: 2, ..item(&pk, "r", "b") }, Cond::Version(1)).await.unwrap();
        let got = s.get(&k).await.unwrap().unwrap();
        assert_eq!((got.version, got.body.as_str()), (2, "b"));
        assert_eq!(s.delete(&k, Cond::Version(1)).await, Err(StoreError::ConditionFailed));
        s.delete(&k, Cond::Version(2)).await.unwrap();
        assert_eq!(s.delete(&k, Cond::Exists).await, Err(StoreError::ConditionFailed));
        s.delete(&k, Cond::None).await.unwrap();
    }

    async fn query_orders_filters_and_pages(s: Store) {
        let pk = uniq();
        for sk in ["a#1", "a#2", "a#3", "b#1", "b#2", "c"] {
            s.put(item(&pk, sk, sk), Cond::None).await.unwrap();
        }
        s.put(item(&format!("{pk}x"), "a#0", "other partition"), Cond::None).await.unwrap();
        let all = s.query(Query::partition(&pk)).await.unwrap();
        assert_eq!(sks(&all), vec!["a#1", "a#2", "a#3", "b#1", "b#2", "c"]);
        assert!(all.next.is_none());
        let back = s.query(Query::partition(&pk).backward()).await.unwrap();
        assert_eq!(sks(&back), vec!["c", "b#2", "b#1", "a#3", "a#2", "a#1"]);
        let q = |c: SkCond| Query::partition(&pk).sk(c);
        assert_eq!(sks(&s.query(q(SkCond::BeginsWith("b#".into()))).await.unwrap()), vec!["b#1", "b#2"]);
        assert_eq!(sks(&s.query(q(SkCond::Between("a#2".into(), "b#1".into()))).await.unwrap()), vec!["a#2", "a#3", "b#1"]);
        assert_eq!(sks(&s.query(q(SkCond::Gt("b#1".into()))).await.unwrap()), vec!["b#2", "c"]);
        assert_eq!(sks(&s.query(q(SkCond::Lt("a#3".into()))).await.unwrap()), vec!["a#1", "a#2"]);
        assert_eq!(sks(&s.query(q(SkCond::Eq("c".into()))).await.unwrap()), vec!["c"]);
        assert_eq!(sks(&s.query(q(SkCond::BeginsWith("b#".into())).backward()).await.unwrap()), vec!["b#2", "b#1"]);
        // Pages of 2 walk the whole partition, in both directions.
        for forward in [true, false] {
            let mut seen = Vec::new();
            let mut cursor = None;
            for _ in 0..10 {
                let mut q = Query::partition(&pk).limit(2).after(cursor.clone());
                if !forward {
                    q = q.backward();
                }
                let p = s.query(q).await.unwrap();
                assert!(p.items.len() <= 2);
                seen.extend(sks(&p));
                cursor = p.next;
                if cursor.is_none() {
                    break;
                }
            }
            let mut expect = vec!["a#1", "a#2", "a#3", "b#1", "b#2", "c"];
            if !forward {
                expect.reverse();
            }
            assert_eq!(seen, expect);
        }
    }

    async fn gsi_entries_follow_their_items(s: Store) {
        let g = uniq();
        let pk = uniq();
        for (sk, gsk) in [("r1", "2"), ("r2", "1"), ("r3", "3")] {
            let mut it = item(&pk, sk, sk);
            it.gsi1 = Some((g.clone(), gsk.into()));
            s.put(it, Cond::None).await.unwrap();
        }
        let p = s.query(Query::gsi1(&g)).await.unwrap();
        assert_eq!(sks(&p), vec!["r2", "r1", "r3"]);
        let first = s.query(Query::gsi1(&g).limit(2)).await.unwrap();
        assert_eq!(sks(&first), vec!["r2", "r1"]);
        let rest = s.query(Query::gsi1(&g).limit(2).after(first.next.clone())).await.unwrap();
        assert_eq!(sks(&rest), vec!["r3"]);
        // Keys only: the table and index keys, in index order, pages continued; no body.
        let keys = s.query(Query::gsi1(&g).keys_only().limit(2)).await.unwrap();
        assert_eq!(sks(&keys), vec!["r2", "r1"]);
        assert_eq!((keys.items[0].pk.as_str(), keys.items[0].gsi1.clone()), (pk.as_str(), Some((g.clone(), "1".into()))));
        assert!(keys.items.iter().all(|i| i.body.is_empty()), "{:?}", keys.items);
        let rest = s.query(Query::gsi1(&g).keys_only().backward().limit(2).after(None)).await.unwrap();
        assert_eq!(sks(&rest), vec!["r3", "r1"]);
        // Moving r1's index key, dropping r2's, deleting r3.
        let mut moved = item(&pk, "r1", "r1");
        moved.gsi1 = Some((g.clone(), "9".into()));
        s.put(moved, Cond::None).await.unwrap();
        s.put(item(&pk, "r2", "r2"), Cond::None).await.unwrap();
        s.delete(&Key::new(&pk, "r3"), Cond::None).await.unwrap();
        let p = s.query(Query::gsi1(&g)).await.unwrap();
        assert_eq!(sks(&p), vec!["r1"]);
        assert_eq!(p.items[0].gsi1, Some((g.clone(), "9".into())));
        let mut two = item(&pk, "r4", "r4");
        two.gsi2 = Some((g.clone(), "x".into()));
        s.put(two, Cond::None).await.unwrap();
        assert_eq!(sks(&s.query(Query::gsi2(&g)).await.unwrap()), vec!["r4"]);
        assert_eq!(sks(&s.query(Query::gsi1(&g).sk(SkCond::BeginsWith("9".into()))).await.unwrap()), vec!["r1"]);
    }

    async fn batch_get_chunks_and_skips_missing(s: Store) {
        let pk = uniq();
        let mut keys = Vec::new();
        for i in 0..230 {
            let sk = format!("{i:04}");
            if i % 3 != 0 {
                s.put(item(&pk, &sk, &sk), Cond::None).await.unwrap();
            }
            keys.push(Key::new(&pk, &sk));
        }
        keys.push(keys[1].clone());
        let before = s.round_trips();
        let mut got: Vec<String> = s.batch_get(&keys).await.unwrap().into_iter().map(|i| i.sk).collect();
        got.sort();
        let expect: Vec<String> = (0..230).filter(|i| i % 3 != 0).map(|i| format!("{i:04}")).collect();
        assert_eq!(got, expect);
        // 230 distinct keys: three requests of at most 100.
        assert_eq!(s.round_trips() - before, 3);
    }

    async fn transactions_are_all_or_nothing(s: Store) {
        let pk = uniq();
        s.put(item(&pk, "exists", "e"), Cond::None).await.unwrap();
        let ops = vec![
            TxOp::Put(item(&pk, "new", "n"), Cond::NotExists),
            TxOp::Check(Key::new(&pk, "exists"), Cond::Version(99)),
        ];
        assert_eq!(s.transact(ops).await, Err(StoreError::TransactionCanceled { index: Some(1) }));
        assert_eq!(s.get(&Key::new(&pk, "new")).await.unwrap(), None);
        let ops = vec![
            TxOp::Put(item(&pk, "new", "n"), Cond::NotExists),
            TxOp::Check(Key::new(&pk, "exists"), Cond::Version(1)),
            TxOp::Add(Key::new(&pk, "exists"), vec![("n".into(), 2)], Cond::Exists),
        ];
        assert!(matches!(s.transact(ops).await, Err(StoreError::Invalid(_))), "two actions on one item");
        let ops = vec![
            TxOp::Put(item(&pk, "new", "n"), Cond::NotExists),
            TxOp::Add(Key::new(&pk, "exists"), vec![("n".into(), 2)], Cond::Version(1)),
            TxOp::Delete(Key::new(&pk, "gone"), Cond::None),
        ];
        s.transact(ops).await.unwrap();
        assert_eq!(s.get(&Key::new(&pk, "new")).await.unwrap().unwrap().body, "n");
        let e = s.get(&Key::new(&pk, "exists")).await.unwrap().unwrap();
        assert_eq!((e.counter("n"), e.version, e.body.as_str()), (2, 1, "e"));
        let many: Vec<TxOp> = (0..101).map(|i| TxOp::Put(item(&pk, &format!("m{i}"), ""), Cond::None)).collect();
        assert!(matches!(s.transact(many).await, Err(StoreError::Invalid(_))));
    }

    async fn counters_add_atomically_and_guard_limits(s: Store) {
        let pk = uniq();
        let k = Key::new(&pk, "usage");
        let a = s.add(&k, &[("templates".into(), 1)], Cond::CounterBelow("templates".into(), 2)).await.unwrap();
        assert_eq!(a.counter("templates"), 1);
        let b = s.add(&k, &[("templates".into(), 1), ("other".into(), 5)], Cond::CounterBelow("templates".into(), 2)).await.unwrap();
        assert_eq!((b.counter("templates"), b.counter("other"), b.version), (2, 5, a.version));
        assert_eq!(
            s.add(&k, &[("templates".into(), 1)], Cond::CounterBelow("templates".into(), 2)).await.map(|_| ()),
            Err(StoreError::ConditionFailed)
        );
        s.add(&k, &[("templates".into(), -2)], Cond::Exists).await.unwrap();
        assert_eq!(s.delete(&k, Cond::CounterZero("other".into())).await, Err(StoreError::ConditionFailed));
        s.add(&k, &[("other".into(), -5)], Cond::None).await.unwrap();
        s.delete(&k, Cond::CounterZero("other".into())).await.unwrap();
        assert_eq!(s.get(&k).await.unwrap(), None);
    }

    async fn a_put_that_creates_an_item_starts_its_counters_and_keeps_stored_ones(s: Store) {
        // A record created together with its counters (a new advertiser already named by
        // the campaign created in the same transaction), in a put and in a transaction.
        let pk = uniq();
        let mut first = item(&pk, "a", "1");
        first.counters = BTreeMap::from([("campaigns".to_string(), 1)]);
        s.put(first.clone(), Cond::NotExists).await.unwrap();
        assert_eq!(s.get(&Key::new(&pk, "a")).await.unwrap().map(|i| i.counter("campaigns")), Some(1));
        let mut second = item(&pk, "b", "1");
        second.counters = BTreeMap::from([("campaigns".to_string(), 1)]);
        s.transact(vec![TxOp::Put(second, Cond::NotExists), TxOp::Put(item(&pk, "c", "1"), Cond::NotExists)]).await.unwrap();
        assert_eq!(s.get(&Key::new(&pk, "b")).await.unwrap().map(|i| i.counter("campaigns")), Some(1));
        // Over a stored item the stored counters stand, whatever the put carries.
        s.add(&Key::new(&pk, "a"), &[("campaigns".into(), 2)], Cond::Exists).await.unwrap();
        let mut again = item(&pk, "a", "2");
        again.version = 2;
        again.counters = BTreeMap::from([("campaigns".to_string(), 1)]);
        s.put(again, Cond::Version(1)).await.unwrap();
        let stored = s.get(&Key::new(&pk, "a")).await.unwrap().expect("stored");
        assert_eq!((stored.counter("campaigns"), stored.body.as_str()), (3, "2"));
    }

    async fn concurrent_read_modify_writes_lose_nothing(s: Store) {
        let pk = uniq();
        let k = Key::new(&pk, "n");
        s.put(item(&pk, "n", "0"), Cond::NotExists).await.unwrap();
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let s = Arc::clone(&s);
            let k = k.clone();
            tasks.push(tokio::spawn(async move {
                for _ in 0..5 {
                    loop {
                        let cur = s.get(&k).await.unwrap().unwrap();
                        let n: u64 = cur.body.parse().unwrap();
                        let next = Item { version: cur.version + 1, body: (n + 1).to_string(), ..cur.clone() };
                        match s.put(next, Cond::Version(cur.version)).await {
                            Ok(()) => break,
                            Err(StoreError::ConditionFailed) => continue,
                            Err(e) => panic!("{e}"),
                        }
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let done = s.get(&k).await.unwrap().unwrap();
        assert_eq!((done.body.as_str(), done.version), ("40", 41));
    }

    async fn round_trips_are_counted(s: Store) {
        let pk = uniq();
        let before = s.round_trips();
        s.put(item(&pk, "a", ""), Cond::None).await.unwrap();
        s.get(&Key::new(&pk, "a")).await.unwrap();
        s.query(Query::partition(&pk)).await.unwrap();
        assert_eq!(s.round_trips() - before, 3);
    }
}

#[tokio::test]
async fn embedded_store_keeps_data_across_restarts() {
    use web::store::embedded::EmbeddedStore;
    let dir = std::env::temp_dir().join(format!("store-{}", uniq()));
    let path = dir.join("store.redb");
    {
        let s = EmbeddedStore::open(&path).unwrap();
        let mut it = item("p", "s", "kept");
        it.gsi1 = Some(("g".into(), "1".into()));
        s.put(it, Cond::None).await.unwrap();
    }
    let s = EmbeddedStore::open(&path).unwrap();
    assert_eq!(s.get(&Key::new("p", "s")).await.unwrap().unwrap().body, "kept");
    assert_eq!(s.query(Query::gsi1("g")).await.unwrap().items.len(), 1);
    let _ = std::fs::remove_dir_all(dir);
}

store_contract! {
    async fn batch_put_writes_many_items_with_their_indexes(s: Store) {
        let pk = uniq();
        let g = uniq();
        let items: Vec<Item> = (0..60)
            .map(|i| Item { gsi1: Some((g.clone(), format!("{i:03}"))), ..item(&pk, &format!("{i:03}"), &i.to_string()) })
            .collect();
        let before = s.round_trips();
        s.batch_put(items).await.unwrap();
        assert_eq!(s.round_trips() - before, 3, "25 items per request");
        assert_eq!(s.query(Query::partition(&pk)).await.unwrap().items.len(), 60);
        let via_index = s.query(Query::gsi1(&g).sk(SkCond::Between("010".into(), "019".into()))).await.unwrap();
        assert_eq!(via_index.items.len(), 10);
        assert_eq!(s.get(&Key::new(&pk, "042")).await.unwrap().unwrap().body, "42");
    }

    async fn batch_write_puts_and_deletes_together(s: Store) {
        let pk = uniq();
        let first: Vec<Item> = (0..40).map(|i| item(&pk, &format!("{i:03}"), "v1")).collect();
        s.batch_write(first, Vec::new()).await.unwrap();
        // Overwrite 0-19, delete 20-39 and a key that does not exist, in one call.
        let puts: Vec<Item> = (0..20).map(|i| item(&pk, &format!("{i:03}"), "v2")).collect();
        let mut deletes: Vec<Key> = (20..40).map(|i| Key::new(&pk, format!("{i:03}"))).collect();
        deletes.push(Key::new(&pk, "missing"));
        let before = s.round_trips();
        s.batch_write(puts, deletes).await.unwrap();
        assert_eq!(s.round_trips() - before, 2, "41 requests in two BatchWriteItems");
        let left = s.query(Query::partition(&pk)).await.unwrap().items;
        assert_eq!(left.len(), 20);
        assert!(left.iter().all(|i| i.body == "v2"));
    }

    async fn put_newer_keeps_the_highest_version_whatever_the_order(s: Store) {
        let pk = uniq();
        let at = |sk: &str, v: u64| Item { version: v, ..item(&pk, sk, &format!("v{v}")) };
        s.put(at("a", 5), Cond::None).await.unwrap();
        s.put(at("b", 5), Cond::None).await.unwrap();
        // Older, equal and newer writes in one call, and a key that is new.
        s.put_newer(vec![at("a", 3), at("b", 9), at("c", 1)]).await.unwrap();
        s.put_newer(vec![at("a", 5), at("c", 2)]).await.unwrap();
        s.put_newer(vec![at("b", 7), Item { expires_at: Some(4_000_000_000), ..at("c", 4) }]).await.unwrap();
        let got: Vec<(String, u64, String)> =
            s.query(Query::partition(&pk)).await.unwrap().items.into_iter().map(|i| (i.sk, i.version, i.body)).collect();
        assert_eq!(got, [("a".into(), 5, "v5".into()), ("b".into(), 9, "v9".into()), ("c".into(), 4, "v4".into())]);
        assert_eq!(s.get(&Key::new(&pk, "c")).await.unwrap().unwrap().expires_at, Some(4_000_000_000));
        // The bounds hold as for every write.
        let too_big = Item { version: 10, ..item(&pk, "d", &"x".repeat(MAX_ITEM_BYTES)) };
        assert!(s.put_newer(vec![too_big]).await.is_err());
        assert!(s.get(&Key::new(&pk, "d")).await.unwrap().is_none());
    }

    async fn a_viewer_partition_reads_as_one_whatever_the_files(s: Store) {
        // A viewer's partition as the audience worker and the counting transaction write it
        // (the embedded store keeps the providers' records in shard files and the frequency
        // record in the main file): read whole, a page at a time both ways, by key and by batch.
        let account = uniq();
        let pk = web::keys::viewer_partition(&account, "pid-1");
        let at = |sk: &str, v: u64| Item { version: v, ..item(&pk, sk, sk) };
        s.put_newer(vec![at("p1", 1), at("p3", 1), at("p5", 1)]).await.unwrap();
        s.batch_write(vec![at("p2", 1)], Vec::new()).await.unwrap();
        let freq = web::keys::freq(&account, "pid-1");
        s.transact(vec![TxOp::Put(item(&freq.pk, &freq.sk, "f"), Cond::NotExists)]).await.unwrap();
        s.put(at("p4", 1), Cond::NotExists).await.unwrap();
        let all: Vec<String> = s.query(Query::partition(&pk)).await.unwrap().items.into_iter().map(|i| i.sk).collect();
        assert_eq!(all, ["FREQ", "p1", "p2", "p3", "p4", "p5"]);
        for forward in [true, false] {
            let mut seen = Vec::new();
            let mut q = Query::partition(&pk).limit(2);
            if !forward {
                q = q.backward();
            }
            loop {
                let page = s.query(q.clone()).await.unwrap();
                assert!(page.items.len() <= 2);
                seen.extend(page.items.into_iter().map(|i| i.sk));
                match page.next {
                    Some(c) => q = q.after(Some(c)),
                    None => break,
                }
            }
            let mut want = all.clone();
            if !forward {
                want.reverse();
            }
            assert_eq!(seen, want, "paged forward={forward}");
        }
        let keys = [Key::new(&pk, "p2"), freq.clone(), Key::new(&pk, "missing")];
        let mut got: Vec<String> = s.batch_get(&keys).await.unwrap().into_iter().map(|i| i.sk).collect();
        got.sort();
        assert_eq!(got, ["FREQ", "p2"]);
        assert_eq!(s.get(&Key::new(&pk, "p3")).await.unwrap().unwrap().body, "p3");
        s.delete(&Key::new(&pk, "p3"), Cond::Exists).await.unwrap();
        s.batch_write(Vec::new(), vec![Key::new(&pk, "p5")]).await.unwrap();
        let left: Vec<String> = s.query(Query::partition(&pk)).await.unwrap().items.into_iter().map(|i| i.sk).collect();
        assert_eq!(left, ["FREQ", "p1", "p2", "p4"]);
    }
}

/// The embedded store's viewer records live in shard files: one written before them (in
/// the main file) is moved there when the store opens, and a transaction may not write one.
#[tokio::test]
async fn embedded_store_moves_viewer_records_to_their_shards() {
    use web::store::embedded::EmbeddedStore;
    let dir = std::env::temp_dir().join(format!("store-{}", uniq()));
    let path = dir.join("store.redb");
    let pk = web::keys::viewer_partition("acct", "pid-9");
    {
        let s = EmbeddedStore::open(&path).unwrap();
        s.put_newer(vec![Item { version: 2, ..item(&pk, "prov", "segments") }]).await.unwrap();
        let refused = s.transact(vec![TxOp::Put(item(&pk, "prov", "x"), Cond::None)]).await;
        assert!(matches!(refused, Err(web::store::StoreError::Invalid(_))), "{refused:?}");
    }
    let s = EmbeddedStore::open(&path).unwrap();
    assert_eq!(s.get(&Key::new(&pk, "prov")).await.unwrap().unwrap().body, "segments", "kept across a restart");
    drop(s);
    // A file of the former layout: the record in the main file, no shards beside it.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.to_string_lossy().contains(".viewers-") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let old = dir.join("old.redb");
    web::store::embedded::write_unsharded_for_test(&old, &Item { version: 3, ..item(&pk, "prov", "moved") }).unwrap();
    let s = EmbeddedStore::open(&old).unwrap();
    assert_eq!(s.query(Query::partition(&pk)).await.unwrap().items.len(), 1, "read once, from its shard");
    assert_eq!(s.get(&Key::new(&pk, "prov")).await.unwrap().unwrap().body, "moved");
    drop(s);
    let s = EmbeddedStore::open(&old).unwrap();
    assert_eq!(s.get(&Key::new(&pk, "prov")).await.unwrap().unwrap().version, 3);
    let _ = std::fs::remove_dir_all(dir);
}

/// The emulator's bucket outside us-east-1 (the local server with `CREATE_TABLE=1` in
/// eu-west-1, as the README's LocalStack section runs it): S3 wants the region named.
#[tokio::test]
async fn a_bucket_is_created_in_any_region_on_the_emulator() {
    use web::blobs::{s3::S3Blobs, Blobs};
    assert!(std::env::var("AWS_ENDPOINT_URL").is_ok(), "AWS_ENDPOINT_URL names the emulator (scripts/test.sh sets it)");
    for region in ["eu-west-1", "us-east-1"] {
        let conf = aws_config::defaults(aws_config::BehaviorVersion::latest()).region(aws_config::Region::new(region)).load().await;
        let b = S3Blobs::new(&conf, format!("r{}", uniq()));
        b.create_bucket_if_missing().await.unwrap_or_else(|e| panic!("{region}: {e}"));
        b.create_bucket_if_missing().await.unwrap_or_else(|e| panic!("{region}, again: {e}"));
        b.put_bytes("k", b"v".to_vec(), "text/plain").await.unwrap();
        assert_eq!(b.get("k").await.unwrap().as_deref(), Some(&b"v"[..]), "{region}");
    }
}
