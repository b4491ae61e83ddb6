import {
  CheckpointErrorCode,
  type DeploymentInput,
  type Repository,
  StaleDeploymentsError,
} from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, rejectionOf } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

/** `Repository#putDeployment`, `#getDeployment` and `#deployments`: versions per definition id, by digest. */
export function describeDeployments<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'deployments.ts');
  let clock = 1_700_000_000_000;
  const deployment = (definitionId: string, digest: string, xml = `<definitions id="${definitionId}"/>`) =>
    ({ definitionId, digest, xml, deployedAt: clock++ }) satisfies DeploymentInput;

  describe('Repository#putDeployment', () => {
    test('TH-DEPLOY-01', async (repository) => {
      const input = deployment('order-fulfilment', 'digest-1');

      expect(await repository.putDeployment(input)).toEqual({ ...input, version: 1 });
    });

    test('TH-DEPLOY-02', async (repository) => {
      const versions = [];
      for (const digest of ['digest-1', 'digest-2', 'digest-3']) {
        versions.push((await repository.putDeployment(deployment('order-fulfilment', digest))).version);
      }

      expect(versions).toEqual([1, 2, 3]);
    });

    test('TH-DEPLOY-03', async (repository) => {
      const a1 = await repository.putDeployment(deployment('order-fulfilment', 'digest-a1'));
      const b1 = await repository.putDeployment(deployment('billing', 'digest-b1'));
      const a2 = await repository.putDeployment(deployment('order-fulfilment', 'digest-a2'));
      const b2 = await repository.putDeployment(deployment('billing', 'digest-b2'));

      expect([a1.version, b1.version, a2.version, b2.version]).toEqual([1, 1, 2, 2]);
    });

    test('TH-DEPLOY-04', async (repository) => {
      const first = await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));
      await repository.putDeployment(deployment('order-fulfilment', 'digest-2'));

      const again = await repository.putDeployment(deployment('order-fulfilment', 'digest-1', '<redeployed/>'));

      expect(again).toEqual(first);
      expect((await repository.deployments()).map(({ digest, version }) => `${digest}@${version}`)).toEqual([
        'digest-1@1',
        'digest-2@2',
      ]);
    });

    test('TH-DEPLOY-05', async (repository) => {
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<definitions name="Bestellung 📦 — 注文">\r\n\t<![CDATA[ a < b && "ü" ]]></definitions>\n${'x'.repeat(200_000)}`;
      const input = deployment('order-fulfilment', 'digest-1', xml);

      await repository.putDeployment(input);

      expect((await repository.getDeployment('digest-1'))?.xml).toBe(xml);
    });
  });

  describe('Repository#getDeployment', () => {
    test('TH-DEPLOY-06', async (repository) => {
      await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));
      const second = await repository.putDeployment(deployment('order-fulfilment', 'digest-2'));

      expect(await repository.getDeployment('digest-2')).toEqual(second);
    });

    test('TH-DEPLOY-07', async (repository) => {
      await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));

      expect(await repository.getDeployment('digest-unknown')).toBeUndefined();
    });
  });

  describe('Repository#deployments', () => {
    test('TH-DEPLOY-08', async (repository) => {
      expect(await repository.deployments()).toEqual([]);
      expect(await repository.deployments('order-fulfilment')).toEqual([]);
    });

    test('TH-DEPLOY-09', async (repository) => {
      const deployed = [];
      for (const [definitionId, digest] of [
        ['order-fulfilment', 'digest-a1'],
        ['billing', 'digest-b1'],
        ['order-fulfilment', 'digest-a2'],
      ] as const) {
        deployed.push(await repository.putDeployment(deployment(definitionId, digest)));
      }

      expect(await repository.deployments()).toEqual(deployed);
    });

    test('TH-DEPLOY-10', async (repository) => {
      const a1 = await repository.putDeployment(deployment('order-fulfilment', 'digest-a1'));
      await repository.putDeployment(deployment('billing', 'digest-b1'));
      const a2 = await repository.putDeployment(deployment('order-fulfilment', 'digest-a2'));

      expect(await repository.deployments('order-fulfilment')).toEqual([a1, a2]);
      expect(await repository.deployments('unknown')).toEqual([]);
    });
  });
  describe('Repository#put with deploymentsSeen', () => {
    const claim = { owner: 'node-a', ttlMs: 30_000, now: 1_700_000_000_000 };

    test('TH-DEPLOY-11', async (repository) => {
      expect(repository.checksDeploymentsSeen).toBe(true);
      await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));
      await repository.putDeployment(deployment('order-fulfilment', 'digest-2'));

      const error = await rejectionOf(repository.put({ ...checkpoint('order-1', 1), deploymentsSeen: 1, claim }));

      expect(error).toBeInstanceOf(StaleDeploymentsError);
      expect(error).toMatchObject({
        code: CheckpointErrorCode.StaleDeployments,
        instanceId: 'order-1',
        seen: 1,
        stored: 2,
      });
      expect(await repository.get('order-1')).toBeUndefined();
      expect(await repository.lease('order-1')).toBeUndefined();
      expect(await repository.instances()).toEqual([]);
    });

    test('TH-DEPLOY-12', async (repository) => {
      expect(await repository.put({ ...checkpoint('order-0', 1), deploymentsSeen: 0 })).toBeUndefined();
      await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));
      await repository.putDeployment(deployment('billing', 'digest-b1'));

      const lease = await repository.put({ ...checkpoint('order-1', 1), deploymentsSeen: 2, claim });
      await repository.put({ ...checkpoint('order-2', 1), deploymentsSeen: 5 });

      expect(lease).toMatchObject({ instanceId: 'order-1', owner: 'node-a' });
      expect((await repository.instances()).map((summary) => summary.instanceId)).toEqual([
        'order-0',
        'order-1',
        'order-2',
      ]);
    });

    test('TH-DEPLOY-13', async (repository) => {
      await repository.putDeployment(deployment('order-fulfilment', 'digest-1'));
      const first = { ...checkpoint('order-1', 1), deploymentsSeen: 1 };
      await repository.put(first);
      await repository.putDeployment(deployment('order-fulfilment', 'digest-2'));

      await repository.put(first);

      expect((await repository.get('order-1'))?.digest).toBe(first.digest);
    });

    test('TH-DEPLOY-14', async (repository) => {
      await repository.put(checkpoint('order-1', 1));

      for (const put of [
        { ...checkpoint('order-1', 2), deploymentsSeen: 0 },
        { ...checkpoint('order-2', 1), deploymentsSeen: -1 },
        { ...checkpoint('order-2', 1), deploymentsSeen: 1.5 },
        { ...checkpoint('order-2', 1), deploymentsSeen: '1' as unknown as number },
      ]) {
        const error = await rejectionOf(repository.put(put));
        expect(error, JSON.stringify(put.deploymentsSeen)).toBeInstanceOf(RangeError);
        expect(String(error)).toContain('deploymentsSeen');
      }
      expect((await repository.get('order-1'))?.seq).toBe(1);
      expect(await repository.get('order-2')).toBeUndefined();
    });
  });
}
